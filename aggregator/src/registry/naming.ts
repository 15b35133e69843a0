import { createHash } from 'node:crypto';

/** Exposed names join server and tool with a double underscore, the convention clients expect. */
export const SEPARATOR = '__';
const HASH_LENGTH = 6;

export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

function shortHash(server: string, name: string): string {
  return createHash('sha256').update(`${server}\0${name}`).digest('hex').slice(0, HASH_LENGTH);
}

/**
 * `<server>__<name>` with every character outside [A-Za-z0-9_-] replaced by `_`. A name longer
 * than `maxLength` keeps its first `maxLength - 7` characters and ends in `_` and six hex digits
 * of sha256(server NUL name), so the same tool always gets the same name.
 */
export function exposedName(server: string, name: string, maxLength: number): string {
  const joined = `${sanitizeName(server)}${SEPARATOR}${sanitizeName(name)}`;
  if (joined.length <= maxLength) return joined;
  return `${joined.slice(0, maxLength - HASH_LENGTH - 1)}_${shortHash(server, name)}`;
}

export interface NamedItem {
  server: string;
  name: string;
}

export interface NameCollision {
  exposed: string;
  kept: NamedItem;
  renamed: NamedItem & { as: string };
}

/**
 * Names every item, resolving collisions (two items that sanitize or shorten to one name) by
 * the same rule: in order of (server, name) the first keeps the name, each later one is named
 * as if too long, i.e. cut and given its hash suffix. Never fatal; collisions are reported.
 */
export function assignNames<T extends NamedItem>(
  items: readonly T[],
  maxLength: number,
): { named: Map<string, T>; collisions: NameCollision[] } {
  const sorted = [...items].sort((a, b) =>
    a.server === b.server ? cmp(a.name, b.name) : cmp(a.server, b.server),
  );
  const byName = new Map<string, T>();
  const nameOf = new Map<T, string>();
  const collisions: NameCollision[] = [];
  for (const item of sorted) {
    const wanted = exposedName(item.server, item.name, maxLength);
    const holder = byName.get(wanted);
    if (!holder) {
      byName.set(wanted, item);
      nameOf.set(item, wanted);
      continue;
    }
    const base = `${sanitizeName(item.server)}${SEPARATOR}${sanitizeName(item.name)}`;
    const as = `${base.slice(0, Math.min(base.length, maxLength - HASH_LENGTH - 1))}_${shortHash(item.server, item.name)}`;
    byName.set(as, item);
    nameOf.set(item, as);
    collisions.push({
      exposed: wanted,
      kept: { server: holder.server, name: holder.name },
      renamed: { server: item.server, name: item.name, as },
    });
  }
  // Names are decided in sorted order, so they do not depend on it; the list keeps the servers' order.
  const named = new Map(items.map((item) => [nameOf.get(item) as string, item]));
  return { named, collisions };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
