/** The time an upstream's restarts, pings and stability are measured by; tests pass one they move by hand. */
export interface Clock {
  now(): number;
  /** Runs `run` once after `ms`, without keeping the process alive; the returned function cancels it. */
  after(ms: number, run: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after(ms, run) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
