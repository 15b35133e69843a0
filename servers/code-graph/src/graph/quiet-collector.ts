import { activitySeen, collectGarbage } from '@toolmesh/core';

/** How long the graph stays quiet before its memory is collected: past the bursts of one save. */
export const QUIET_COLLECT_MS = 3000;
/**
 * The second collection's delay after the first. V8 shrinks its young generation in a full
 * collection only when allocation over the 5 s before it was low but not nil; the first
 * collection ends the window that saw the burst.
 */
export const SHRINK_AFTER_MS = 6000;

/**
 * Full garbage collections once the graph has been quiet. V8 keeps its young generation at the
 * size a burst of work grew it to: after the first precise index of this repository 32 MiB of
 * semi-spaces, nearly empty, stay resident in an idle server, and nothing collects them while it
 * is idle.
 *
 * Collects twice once the graph has been quiet `quietMs`: the garbage of the burst first, then,
 * `SHRINK_AFTER_MS` later, the young generation it grew (down to 1 MiB). Each `poke` (an index
 * or precise progress report) starts over, and each collection runs only if `isQuiet` holds.
 */
export class QuietCollector {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly isQuiet: () => boolean,
    private readonly quietMs = QUIET_COLLECT_MS,
  ) {}

  poke(): void {
    // Nor does a bin give back its start-up heap while the graph works (see core's heap-release).
    activitySeen();
    this.after(this.quietMs, true);
  }

  private after(ms: number, first: boolean): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.isQuiet()) return;
      collectGarbage();
      if (first) this.after(SHRINK_AFTER_MS, false);
    }, ms);
    // A quiet server that is done may exit without it.
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
