import type { Logger } from '@toolmesh/core';

/**
 * Runs `tick` every `everyMs` (the first one `firstMs` after start), never two at once. Its timers
 * are unref'd, so a schedule never keeps a process alive, and stop() ends it and aborts a tick in progress.
 */
export class FeedScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private controller = new AbortController();

  constructor(
    private readonly tick: (signal: AbortSignal) => Promise<unknown>,
    private readonly options: { everyMs: number; firstMs: number; log: Logger },
  ) {}

  start(): void {
    if (this.timer) return;
    this.controller = new AbortController();
    const schedule = (delay: number) => {
      this.timer = setTimeout(() => {
        this.runOnce();
        schedule(this.options.everyMs);
      }, delay);
      this.timer.unref();
    };
    schedule(this.options.firstMs);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.controller.abort();
    await this.running;
  }

  private runOnce(): void {
    if (this.running) return;
    this.running = this.tick(this.controller.signal)
      .catch((error: unknown) => this.options.log.error('scheduled refresh failed', { error: String(error) }))
      .finally(() => {
        this.running = undefined;
      });
  }
}
