import type { PreciseUpgrader } from './precise/precise-upgrader.js';
import type { RootIndex } from './root-index.js';

/** How often a long index says how far it is, by default: often enough to show it is alive. */
export const PROGRESS_EVERY_MS = 5000;

/**
 * Says how far a root's index and precise upgrade are, one line at most every `everyMs` while
 * they run (`indexing /src/app: parsing 4800/13553 files`), so a long first index is not silent
 * on a pipe or in a log. A run shorter than `everyMs` says nothing. Returns a function that stops it.
 */
export function followProgress(
  root: string,
  index: RootIndex,
  precise: PreciseUpgrader | undefined,
  say: (line: string) => void,
  everyMs = PROGRESS_EVERY_MS,
): () => void {
  let lastSaid = Date.now();
  const sayNow = (line: string) => {
    if (Date.now() - lastSaid < everyMs) return;
    lastSaid = Date.now();
    say(line);
  };
  const stops = [
    index.onProgress(({ phase, done, total }) => {
      if (phase === 'ready' || phase === 'failed' || phase === 'idle') return;
      sayNow(`indexing ${root}: ${phase}${total > 0 ? ` ${done}/${total} files` : ''}`);
    }),
    precise?.onProgress(({ state, done, total, partition }) => {
      if (state !== 'building' && state !== 'checking') return;
      sayNow(
        `precise ${root}: ${state}${total > 0 ? ` ${done}/${total} files` : ''}${partition ? ` (${partition})` : ''}`,
      );
    }),
  ];
  return () => {
    for (const stop of stops) stop?.();
  };
}
