import { createHash } from 'node:crypto';

/** Exposed names join server and tool with a double underscore, the convention clients expect. */
export const SEPARATOR = '__';
const HASH_LENGTH = 6;

/** The aggregator's own tools: no server's tool is exposed under one of these names. */
export const OWN_TOOL_NAMES = {
  search: 'search_tool_bm25',
  list: 'list_my_tools',
  call: 'call_tool',
  todoWrite: 'todo_write',
  todoRead: 'todo_read',
  exitPlanMode: 'exit_plan_mode',
  listWorkspaces: 'list_workspaces',
} as const;

export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_');
}

function shortHash(server: string, name: string): string {
  return createHash('sha256').update(`${server}\0${name}`).digest('hex').slice(0, HASH_LENGTH);
}

function fitted(base: string, server: string, name: string, maxLength: number): string {
  if (base.length <= maxLength) return base;
  return hashed(base, server, name, maxLength);
}

/** `base` cut to leave room for `_` and six hex digits of sha256(server NUL name), which end it. */
function hashed(base: string, server: string, name: string, maxLength: number): string {
  return `${base.slice(0, Math.min(base.length, maxLength - HASH_LENGTH - 1))}_${shortHash(server, name)}`;
}

function prefixedBase(server: string, name: string): string {
  return `${sanitizeName(server)}${SEPARATOR}${sanitizeName(name)}`;
}

/**
 * `<server>__<name>` with every character outside [A-Za-z0-9_-] replaced by `_`. A name longer
 * than `maxLength` keeps its first `maxLength - 7` characters and ends in `_` and six hex digits
 * of sha256(server NUL name), so the same tool always gets the same name.
 */
export function exposedName(server: string, name: string, maxLength: number): string {
  return fitted(prefixedBase(server, name), server, name, maxLength);
}

export interface NamedItem {
  server: string;
  name: string;
  /** Exposed under its own name rather than `<server>__<name>` (its server has `prefix: false`). */
  ownName?: boolean;
}

export interface NameCollision {
  exposed: string;
  kept: NamedItem;
  renamed: NamedItem & { as: string };
}

/**
 * The names an item may take, best first: its own name (only with `ownName`), `<server>__<name>`,
 * and last that cut and given its hash suffix, which is taken when all are. The last is worked
 * out only when it is needed: a sha256 for every tool (Node 20's createHash) was most of the CPU a
 * registry took to build, between `toolmesh serve`'s initialize and its first tools/list.
 */
class Candidates {
  readonly first: string;
  readonly #named: readonly string[];
  #last: string | undefined;

  constructor(
    private readonly item: NamedItem,
    private readonly maxLength: number,
  ) {
    const prefixed = exposedName(item.server, item.name, maxLength);
    this.#named = item.ownName
      ? [fitted(sanitizeName(item.name), item.server, item.name, maxLength), prefixed]
      : [prefixed];
    this.first = this.#named[0] as string;
  }

  get last(): string {
    const { server, name } = this.item;
    this.#last ??= hashed(prefixedBase(server, name), server, name, this.maxLength);
    return this.#last;
  }

  includes(name: string): boolean {
    return this.#named.includes(name) || this.last === name;
  }

  /** The first not `taken`; the last when every one is. */
  firstFree(taken: ReadonlySet<string>): string {
    return this.#named.find((name) => !taken.has(name)) ?? this.last;
  }
}

/** The key under which a name an item was given is remembered: its server and its own name. */
export function heldNameKey(item: NamedItem): string {
  return `${item.server}\0${item.name}`;
}

/**
 * Names every item, resolving collisions (two items that sanitize or shorten to one name) by
 * one rule: an item keeps the name it `held` (by `heldNameKey`) when it is still one of its
 * candidates, so a name never moves to another tool while its holder is listed, except that an
 * own name gives way to the prefixed tool whose `<server>__<name>` it is; the others are
 * taken prefixed ones first, then in order of (server, name), and each gets the first of its
 * candidates still free: its own name (only with `ownName`), `<server>__<name>`, then that cut
 * and given its hash suffix. So an own name yields to every prefixed name, to an earlier own
 * name and to `reserved` ones (the aggregator's own tools) by falling back to the prefixed form.
 * Never fatal; collisions are reported.
 */
export function assignNames<T extends NamedItem>(
  items: readonly T[],
  maxLength: number,
  reserved: readonly string[] = [],
  held: ReadonlyMap<string, string> = new Map(),
): { named: Map<string, T>; collisions: NameCollision[] } {
  const sorted = [...items].sort(
    (a, b) =>
      Number(Boolean(a.ownName)) - Number(Boolean(b.ownName)) ||
      (a.server === b.server ? cmp(a.name, b.name) : cmp(a.server, b.server)),
  );
  const candidatesOf = new Map(sorted.map((item) => [item, new Candidates(item, maxLength)]));
  const taken = new Set(reserved);
  const byName = new Map<string, T>();
  const nameOf = new Map<T, string>();
  const give = (item: T, name: string) => {
    taken.add(name);
    byName.set(name, item);
    nameOf.set(item, name);
  };
  // An own name never keeps a name a prefixed tool wants, held or not: a server with
  // `prefix: false` that comes up first must not keep another server's `<server>__<name>`.
  const wantedByPrefixed = new Set(
    sorted.filter((item) => !item.ownName).map((item) => (candidatesOf.get(item) as Candidates).first),
  );
  for (const item of sorted) {
    const kept = held.get(heldNameKey(item));
    if (kept === undefined || taken.has(kept) || !candidatesOf.get(item)?.includes(kept)) continue;
    if (item.ownName && wantedByPrefixed.has(kept)) continue;
    give(item, kept);
  }
  for (const item of sorted) {
    if (nameOf.has(item)) continue;
    give(item, (candidatesOf.get(item) as Candidates).firstFree(taken));
  }
  const collisions: NameCollision[] = [];
  for (const item of sorted) {
    const wanted = (candidatesOf.get(item) as Candidates).first;
    const as = nameOf.get(item) as string;
    const holder = byName.get(wanted);
    if (as === wanted || (holder === undefined && !reserved.includes(wanted))) continue;
    collisions.push({
      exposed: wanted,
      kept: holder ? { server: holder.server, name: holder.name } : { server: 'toolmesh', name: wanted },
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
