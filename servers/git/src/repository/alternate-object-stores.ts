import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** As deep as git itself follows alternates that name alternates of their own. */
const MAX_DEPTH = 5;

/**
 * The object stores an object store borrows from (`objects/info/alternates`, one path a line,
 * relative ones to the `objects` folder), followed as git follows them, by real path. Git reads
 * objects from each, so each must pass the same confinement as the repository's own.
 */
export function alternateObjectStores(objects: string, depth = 0): string[] {
  if (depth >= MAX_DEPTH) return [];
  let text: string;
  try {
    text = readFileSync(path.join(objects, 'info', 'alternates'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .flatMap((line) => {
      const named = path.resolve(objects, line);
      let real: string;
      try {
        real = realpathSync.native(named);
      } catch {
        // One that does not exist lends nothing; git skips it too.
        return [];
      }
      return [real, ...alternateObjectStores(real, depth + 1)];
    });
}
