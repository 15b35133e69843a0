// What an idle process gives back of V8's heap. Start-up (loading the SDK and zod, building the
// tools' schemas, opening a database) leaves old-generation pages a quarter empty and both halves
// of the young generation committed, and V8 keeps them while nothing allocates: about 4 MiB of a
// server's resident memory at rest (docs/benchmarks.md, memory at rest).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options?: { type: 'major' | 'minor' }) => void;

/**
 * V8 shrinks its young generation at a collection only when allocation over its last ten
 * collections was slow; that many young collections of a quiet heap (each well under a
 * millisecond) make it so.
 */
const RECENT_COLLECTIONS = 10;

/** How long a started process goes without a request before its start-up heap is given back. */
export const START_UP_QUIET_MS = 1000;

let collect: Collect | undefined;

/**
 * V8's own `gc`, got once from a context made while --expose-gc was on; the flag is turned off
 * again so no other context sees `gc`.
 */
function v8Collect(): Collect {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as Collect;
    setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

/** A full garbage collection. */
export function collectGarbage(): void {
  v8Collect()();
}

/**
 * Collects and gives back what the heap holds empty: the young generation down to its smallest,
 * and sparse old-generation pages, compacted. Tens of milliseconds for a server's heap; for a
 * process that has gone quiet. `--optimize-for-size` is what makes a full collection compact
 * and return those pages; it is on for these collections only, so later work runs with V8's
 * defaults, and the young generation grows again under load as it did at start.
 */
export function releaseHeap(): void {
  const gc = v8Collect();
  for (let young = 0; young <= RECENT_COLLECTIONS; young++) gc({ type: 'minor' });
  setFlagsFromString('--optimize-for-size');
  try {
    gc();
    gc();
  } finally {
    setFlagsFromString('--no-optimize-for-size');
  }
}

let startUpPending = false;
let quietTimer: NodeJS.Timeout | undefined;

/**
 * For bins and the server host (small-heap): once start-up is over, when requests first pause
 * for `START_UP_QUIET_MS`, the heap it left is given back (`releaseHeap`), once. Later bursts are
 * V8's own to collect, or an engine's (code-graph's after an index).
 */
export function releaseStartUpHeapWhenQuiet(): void {
  startUpPending = true;
}

/**
 * A request came, serving began, or an engine worked (code-graph's first index): the start-up
 * release waits for the next pause.
 */
export function activitySeen(): void {
  if (!startUpPending) return;
  clearTimeout(quietTimer);
  quietTimer = setTimeout(() => {
    startUpPending = false;
    quietTimer = undefined;
    releaseHeap();
  }, START_UP_QUIET_MS);
  // A process that is done may exit without it.
  quietTimer.unref();
}
