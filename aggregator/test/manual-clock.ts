import type { Clock } from '../src/upstream/clock.js';

interface Waiting {
  due: number;
  delay: number;
  run: () => void;
}

/** A clock that moves only when a test moves it, and shows what waits on it (restarts, pings). */
export class ManualClock implements Clock {
  private time = 0;
  private waiting: Waiting[] = [];

  now(): number {
    return this.time;
  }

  after(ms: number, run: () => void): () => void {
    const entry = { due: this.time + ms, delay: ms, run };
    this.waiting.push(entry);
    return () => {
      this.waiting = this.waiting.filter((other) => other !== entry);
    };
  }

  /** The delay each waiting timer was set with, in the order they were set. */
  delays(): number[] {
    return this.waiting.map((entry) => entry.delay);
  }

  /** Moves time on by `ms` and runs what falls due, earliest first. */
  advance(ms: number): void {
    this.time += ms;
    const due = this.waiting.filter((entry) => entry.due <= this.time).sort((a, b) => a.due - b.due);
    this.waiting = this.waiting.filter((entry) => !due.includes(entry));
    for (const entry of due) entry.run();
  }
}
