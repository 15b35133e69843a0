import { tokenize as defaultTokenize } from './tokenize.js';

export interface Bm25Options<Field extends string> {
  /** Weight of each field: a term in a field of weight 3 counts as three occurrences elsewhere. */
  fields: Readonly<Record<Field, number>>;
  /** Term-frequency saturation; default 1.2. */
  k1?: number;
  /** Length normalisation, for every field or per field (0 = none, 1 = full); default 0.75. */
  b?: number | Partial<Readonly<Record<Field, number>>>;
  /** Turns text into terms, for documents and queries alike; default `tokenize`. */
  tokenize?: (text: string) => string[];
}

export interface SearchOptions<Id> {
  /** At most this many hits; default 10. */
  limit?: number;
  /**
   * Texts that also stand for a query term (synonyms, spelled-out abbreviations), tokenized
   * like the query. The term and its expansions form one concept: a document scores the best
   * of them, so one holding both "delete" and "remove" gains nothing over one holding either;
   * an expansion of several terms ("pull request" for "pr") scores the sum of its terms.
   * Two adjacent query terms are offered too, joined by a space ("pull request"), so phrases
   * can have synonyms ("pr"); a phrase with expansions becomes a concept of its own.
   */
  expand?: (term: string) => readonly string[];
  /** How much an expansion counts next to the query's own term; default 0.5. */
  expansionWeight?: number;
  /** Only documents it accepts are ranked. */
  filter?: (id: Id) => boolean;
  /** Extra score for some documents, added when they match the query: a prior, such as their group's. */
  boost?: ReadonlyMap<Id, number>;
}

export interface Bm25Hit<Id> {
  id: Id;
  score: number;
}

/** One term's documents: their slots and, per slot, the term's count in each field. */
interface Postings {
  term: string;
  slots: number[];
  counts: number[];
}

/** One way of saying a query term: its own term, or an expansion of one or more terms. */
interface Alternative {
  postings: Postings[];
  weight: number;
}

/** The alternatives that stand for one query term. */
type Concept = Alternative[];

const INITIAL_CAPACITY = 64;

/**
 * An in-memory BM25F index (field-weighted BM25, one idf over the whole document).
 * Adding or removing a document touches only its own terms' postings; document
 * frequencies and average field lengths are kept current as it goes, so nothing is
 * ever rebuilt.
 */
export class Bm25Index<Id, Field extends string = string> {
  readonly #fields: Field[];
  readonly #fieldWeights: Float64Array;
  readonly #lengthNormalisation: Float64Array;
  readonly #k1: number;
  readonly #tokenize: (text: string) => string[];
  readonly #postings = new Map<string, Postings>();
  readonly #slotOf = new Map<Id, number>();
  readonly #ids: (Id | undefined)[] = [];
  readonly #postingsOf: (Postings[] | undefined)[] = [];
  readonly #freeSlots: number[] = [];
  readonly #totalLengths: Float64Array;
  /** Per slot and field, the field's length in terms. */
  #lengths: Float64Array;
  /** Scratch space for one search, all zero between searches. */
  #scores: Float64Array;
  #conceptScores: Float64Array;
  #alternativeScores: Float64Array;

  constructor(options: Bm25Options<Field>) {
    this.#fields = Object.keys(options.fields) as Field[];
    if (this.#fields.length === 0) throw new Error('a Bm25Index needs at least one field');
    this.#fieldWeights = Float64Array.from(this.#fields, (field) => options.fields[field]);
    this.#lengthNormalisation = Float64Array.from(this.#fields, (field) =>
      typeof options.b === 'object' ? (options.b[field] ?? 0.75) : (options.b ?? 0.75),
    );
    this.#k1 = options.k1 ?? 1.2;
    this.#tokenize = options.tokenize ?? defaultTokenize;
    this.#totalLengths = new Float64Array(this.#fields.length);
    this.#lengths = new Float64Array(INITIAL_CAPACITY * this.#fields.length);
    this.#scores = new Float64Array(INITIAL_CAPACITY);
    this.#conceptScores = new Float64Array(INITIAL_CAPACITY);
    this.#alternativeScores = new Float64Array(INITIAL_CAPACITY);
  }

  get size(): number {
    return this.#slotOf.size;
  }

  has(id: Id): boolean {
    return this.#slotOf.has(id);
  }

  /** Indexes a document under `id`, replacing any document already there. Missing fields are empty. */
  add(id: Id, document: Partial<Readonly<Record<Field, string>>>): void {
    this.remove(id);
    const fieldCount = this.#fields.length;
    const slot = this.#freeSlots.pop() ?? this.#ids.length;
    this.#reserve(slot + 1);
    const own: Postings[] = [];
    for (let field = 0; field < fieldCount; field++) {
      const text = document[this.#fields[field]!];
      const terms = text ? this.#tokenize(text) : [];
      this.#lengths[slot * fieldCount + field] = terms.length;
      this.#totalLengths[field]! += terms.length;
      for (const term of terms) {
        let postings = this.#postings.get(term);
        if (!postings) {
          postings = { term, slots: [], counts: [] };
          this.#postings.set(term, postings);
        }
        // Postings grow in slot order within one add, so this document's entry is the last.
        const last = postings.slots.length - 1;
        if (postings.slots[last] !== slot) {
          postings.slots.push(slot);
          for (let each = 0; each < fieldCount; each++) postings.counts.push(0);
          own.push(postings);
        }
        postings.counts[(postings.slots.length - 1) * fieldCount + field]!++;
      }
    }
    this.#ids[slot] = id;
    this.#postingsOf[slot] = own;
    this.#slotOf.set(id, slot);
  }

  /** Drops the document under `id`; false when there was none. */
  remove(id: Id): boolean {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return false;
    const fieldCount = this.#fields.length;
    for (const postings of this.#postingsOf[slot]!) {
      const at = postings.slots.lastIndexOf(slot);
      const last = postings.slots.length - 1;
      postings.slots[at] = postings.slots[last]!;
      postings.slots.pop();
      postings.counts.copyWithin(at * fieldCount, last * fieldCount);
      postings.counts.length = last * fieldCount;
      if (last === 0) this.#postings.delete(postings.term);
    }
    for (let field = 0; field < fieldCount; field++) {
      this.#totalLengths[field]! -= this.#lengths[slot * fieldCount + field]!;
    }
    this.#ids[slot] = undefined;
    this.#postingsOf[slot] = undefined;
    this.#slotOf.delete(id);
    this.#freeSlots.push(slot);
    return true;
  }

  /** The best documents for `query`, best first; equal scores are ordered by id. */
  search(query: string, options: SearchOptions<Id> = {}): Bm25Hit<Id>[] {
    const limit = options.limit ?? 10;
    if (limit <= 0 || this.size === 0) return [];
    const matched = this.#score(this.#concepts(query, options));
    const scores = this.#scores;
    for (const [id, extra] of options.boost ?? []) {
      const slot = this.#slotOf.get(id);
      if (slot !== undefined && scores[slot]! > 0) scores[slot]! += extra;
    }
    const ranked = this.#rank(matched, limit, options.filter);
    const hits = ranked.map((slot) => ({ id: this.#ids[slot]!, score: scores[slot]! }));
    for (const slot of matched) scores[slot] = 0;
    return hits;
  }

  #concepts(query: string, options: SearchOptions<Id>): Concept[] {
    const concepts: Concept[] = [];
    const seen = new Set<string>();
    const terms = this.#tokenize(query);
    for (const term of terms) {
      if (seen.has(term)) continue;
      seen.add(term);
      concepts.push(this.#concept(term, [term], options));
    }
    for (let at = 1; at < terms.length; at++) {
      const phrase = this.#concept(`${terms[at - 1]} ${terms[at]}`, [], options);
      if (phrase.length > 0) concepts.push(phrase);
    }
    return this.#withoutRepeats(concepts);
  }

  /** A concept for `key`: its own terms at full weight when given, then its expansions. */
  #concept(key: string, own: string[], options: SearchOptions<Id>): Concept {
    const concept: Concept = [];
    const spellings = new Set<string>();
    const add = (terms: string[], weight: number) => {
      const spelling = terms.join(' ');
      if (terms.length === 0 || spellings.has(spelling)) return;
      spellings.add(spelling);
      const postings = terms.flatMap((term) => this.#postings.get(term) ?? []);
      if (postings.length > 0) concept.push({ postings, weight });
    };
    add(own, 1);
    const weight = options.expansionWeight ?? 0.5;
    for (const text of options.expand?.(key) ?? []) add(this.#tokenize(text), weight);
    return concept;
  }

  /**
   * A query term that is also another term's synonym ("create new …") is one concept, not
   * two: its own concept goes, and the one that names it counts it at full weight.
   */
  #withoutRepeats(concepts: Concept[]): Concept[] {
    const kept: Concept[] = [];
    for (const concept of concepts) {
      const own = concept[0];
      const elsewhere =
        own?.weight === 1 && own.postings.length === 1
          ? kept.flat().find((other) => other.postings.length === 1 && other.postings[0] === own.postings[0])
          : undefined;
      if (elsewhere) elsewhere.weight = 1;
      else if (concept.length > 0) kept.push(concept);
    }
    return kept;
  }

  /**
   * Adds each concept's score into `#scores` and returns the slots that matched anything.
   * An alternative of several terms scores their sum; a concept scores its best alternative.
   */
  #score(concepts: Concept[]): number[] {
    const scores = this.#scores;
    const conceptScores = this.#conceptScores;
    const alternativeScores = this.#alternativeScores;
    const matched: number[] = [];
    const matchedByConcept: number[] = [];
    const matchedByAlternative: number[] = [];
    for (const concept of concepts) {
      for (const alternative of concept) {
        for (const postings of alternative.postings) {
          this.#scoreTerm(postings, alternative.weight, alternativeScores, matchedByAlternative);
        }
        for (const slot of matchedByAlternative) {
          if (conceptScores[slot] === 0) matchedByConcept.push(slot);
          if (alternativeScores[slot]! > conceptScores[slot]!) conceptScores[slot] = alternativeScores[slot]!;
          alternativeScores[slot] = 0;
        }
        matchedByAlternative.length = 0;
      }
      for (const slot of matchedByConcept) {
        if (scores[slot] === 0) matched.push(slot);
        scores[slot]! += conceptScores[slot]!;
        conceptScores[slot] = 0;
      }
      matchedByConcept.length = 0;
    }
    return matched;
  }

  /** Adds one term's BM25F score, with this moment's statistics, into `into` for every slot holding it. */
  #scoreTerm(postings: Postings, weight: number, into: Float64Array, matched: number[]): void {
    const { slots, counts } = postings;
    if (slots.length === 0 || weight <= 0) return;
    const fieldCount = this.#fields.length;
    const documentCount = this.size;
    const k1 = this.#k1;
    const lengths = this.#lengths;
    const fieldWeights = this.#fieldWeights;
    const normalisation = this.#lengthNormalisation;
    const totals = this.#totalLengths;
    const idf = weight * Math.log(1 + (documentCount - slots.length + 0.5) / (slots.length + 0.5));
    for (let at = 0; at < slots.length; at++) {
      const slot = slots[at]!;
      let weightedCount = 0;
      for (let field = 0, offset = at * fieldCount; field < fieldCount; field++, offset++) {
        const count = counts[offset]!;
        if (count === 0) continue;
        const b = normalisation[field]!;
        const relativeLength = (lengths[slot * fieldCount + field]! * documentCount) / totals[field]!;
        weightedCount += (count * fieldWeights[field]!) / (1 - b + b * relativeLength);
      }
      if (weightedCount <= 0) continue;
      if (into[slot] === 0) matched.push(slot);
      into[slot]! += (idf * weightedCount * (k1 + 1)) / (k1 + weightedCount);
    }
  }

  #rank(matched: number[], limit: number, filter: ((id: Id) => boolean) | undefined): number[] {
    const candidates = filter ? matched.filter((slot) => filter(this.#ids[slot]!)) : matched;
    const before = (a: number, b: number) => this.#ranksBefore(a, b);
    if (candidates.length <= limit) return [...candidates].sort((a, b) => (before(a, b) ? -1 : 1));
    const top: number[] = [];
    for (const slot of candidates) {
      if (top.length === limit && !before(slot, top[limit - 1]!)) continue;
      let low = 0;
      let high = top.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (before(slot, top[middle]!)) high = middle;
        else low = middle + 1;
      }
      top.splice(low, 0, slot);
      if (top.length > limit) top.pop();
    }
    return top;
  }

  #ranksBefore(a: number, b: number): boolean {
    const difference = this.#scores[a]! - this.#scores[b]!;
    if (difference !== 0) return difference > 0;
    return String(this.#ids[a]) < String(this.#ids[b]);
  }

  #reserve(slots: number): void {
    if (slots <= this.#scores.length) return;
    const capacity = Math.max(slots, this.#scores.length * 2);
    const lengths = new Float64Array(capacity * this.#fields.length);
    lengths.set(this.#lengths);
    this.#lengths = lengths;
    this.#scores = new Float64Array(capacity);
    this.#conceptScores = new Float64Array(capacity);
    this.#alternativeScores = new Float64Array(capacity);
  }
}
