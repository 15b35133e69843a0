/** The searches a session made since it last called a tool: their terms and the tools they returned. */
interface TrailSearch {
  terms: readonly string[];
  returned: ReadonlySet<string>;
}

/** A session's searches kept for learning: a model rarely needs more tries than this. */
const SEARCHES_KEPT = 5;
/** Sessions followed at once; the longest idle is forgotten first. */
const SESSIONS_KEPT = 1000;

/**
 * Which searches led each session to the tool it called. A session that searches, perhaps
 * searches again in other words, and calls a tool one of those searches returned, was led to
 * it by the words of every one of them: all of them are credited, the first, failed attempt's
 * words included, since those are the ones a later search needs to learn.
 */
export class SearchTrails {
  readonly #trails = new Map<string, TrailSearch[]>();

  searched(session: string, terms: readonly string[], returned: Iterable<string>): void {
    const trail = this.#trails.get(session) ?? [];
    this.#trails.delete(session);
    trail.push({ terms, returned: new Set(returned) });
    if (trail.length > SEARCHES_KEPT) trail.shift();
    this.#trails.set(session, trail);
    if (this.#trails.size > SESSIONS_KEPT) this.#trails.delete(this.#trails.keys().next().value!);
  }

  /**
   * The terms that led `session` to `tool`, when one of its searches since its last call
   * returned it, and an empty list otherwise; either way the trail starts again.
   */
  called(session: string, tool: string): string[] {
    const trail = this.#trails.get(session);
    if (!trail) return [];
    this.#trails.delete(session);
    if (!trail.some((search) => search.returned.has(tool))) return [];
    return [...new Set(trail.flatMap((search) => search.terms))];
  }

  forget(session: string): void {
    this.#trails.delete(session);
  }
}
