/** One learned link: a query term that led a session to a tool, and how strongly. */
export interface Association {
  term: string;
  tool: string;
  /** Uses counted, each worth less the older it is (see `LearnedAssociations`). */
  strength: number;
  /** When the strength was last worked out, epoch milliseconds. */
  at: number;
}

export interface LearnedAssociationsOptions {
  /** After this long unused, a link counts half as much. */
  halfLifeMs: number;
  /** The most links kept; the weakest go first. */
  maxAssociations: number;
}

/**
 * What a deployment has learnt from use: which query terms led sessions to which tools. Each
 * use adds one to a link's strength; the strength halves every `halfLifeMs`, so what stops
 * being used fades, and at most `maxAssociations` links are kept. Only terms and tool names,
 * never a call's arguments.
 */
export class LearnedAssociations {
  readonly #byTerm = new Map<string, Map<string, { strength: number; at: number }>>();
  readonly #options: LearnedAssociationsOptions;
  #count = 0;

  constructor(options: LearnedAssociationsOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#count;
  }

  /**
   * Takes in links kept from before or learnt elsewhere (as `reinforce` left them); of two
   * states of one link, the later stands.
   */
  load(associations: readonly Association[]): void {
    for (const { term, tool, strength, at } of associations) {
      const held = this.#byTerm.get(term)?.get(tool);
      if (!held || held.at <= at) this.#set(term, tool, strength, at);
    }
  }

  /** Drops links another process dropped. */
  forget(associations: readonly Pick<Association, 'term' | 'tool'>[]): void {
    for (const { term, tool } of associations) this.#delete(term, tool);
  }

  /**
   * How strongly `terms` call for each tool they led to, from 0 to 1: per term, a link's
   * strength saturated (one use counts 0.63, three 0.95), averaged over all the terms, so a
   * tool that only one word of a long query led to is pulled only a little.
   */
  pull(terms: readonly string[], now: number): Map<string, number> {
    const pulls = new Map<string, number>();
    if (terms.length === 0) return pulls;
    for (const term of new Set(terms)) {
      for (const [tool, link] of this.#byTerm.get(term) ?? []) {
        const share = (1 - Math.exp(-this.#decayed(link, now))) / terms.length;
        pulls.set(tool, (pulls.get(tool) ?? 0) + share);
      }
    }
    return pulls;
  }

  /** Counts one more use of each term for `tool`; the links as they now stand, to keep. */
  reinforce(terms: readonly string[], tool: string, now: number): Association[] {
    return [...new Set(terms)].map((term) => {
      const link = this.#byTerm.get(term)?.get(tool);
      const strength = (link ? this.#decayed(link, now) : 0) + 1;
      this.#set(term, tool, strength, now);
      return { term, tool, strength, at: now };
    });
  }

  /** Drops the weakest links beyond the bound; the ones dropped, to forget. */
  evicted(now: number): Association[] {
    const excess = this.#count - this.#options.maxAssociations;
    if (excess <= 0) return [];
    const all: Association[] = [];
    for (const [term, tools] of this.#byTerm)
      for (const [tool, link] of tools) all.push({ term, tool, strength: this.#decayed(link, now), at: now });
    const weakest = all.sort((a, b) => a.strength - b.strength).slice(0, excess);
    for (const { term, tool } of weakest) this.#delete(term, tool);
    return weakest;
  }

  clear(): void {
    this.#byTerm.clear();
    this.#count = 0;
  }

  #decayed(link: { strength: number; at: number }, now: number): number {
    return link.strength * 0.5 ** (Math.max(0, now - link.at) / this.#options.halfLifeMs);
  }

  #set(term: string, tool: string, strength: number, at: number): void {
    let tools = this.#byTerm.get(term);
    if (!tools) {
      tools = new Map();
      this.#byTerm.set(term, tools);
    }
    if (!tools.has(tool)) this.#count++;
    tools.set(tool, { strength, at });
  }

  #delete(term: string, tool: string): void {
    const tools = this.#byTerm.get(term);
    if (!tools?.delete(tool)) return;
    this.#count--;
    if (tools.size === 0) this.#byTerm.delete(term);
  }
}
