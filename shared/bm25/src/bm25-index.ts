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
  /** Extra score for the documents of some groups (see `add`), added to those that match the query. */
  groupBoost?: ReadonlyMap<string, number>;
}

export interface Bm25Hit<Id> {
  id: Id;
  score: number;
}

/**
 * One term's occurrences: an entry per document and field holding it, keyed
 * `slot * fieldCount + field`, with the count there. A document's entries are adjacent,
 * which lets a search sum its fields without a lookup.
 */
interface Postings {
  term: string;
  keys: number[];
  counts: number[];
  /** How many documents hold the term in any field. */
  documents: number;
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
  /** Per slot, the postings its document appears in. */
  readonly #postingsOf: (Postings[] | undefined)[] = [];
  readonly #groupNumbers = new Map<string, number>();
  /** Per slot, its document's group number + 1, or 0. */
  #groupOf: Int32Array;
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
    this.#groupOf = new Int32Array(INITIAL_CAPACITY);
  }

  get size(): number {
    return this.#slotOf.size;
  }

  has(id: Id): boolean {
    return this.#slotOf.has(id);
  }

  /**
   * Indexes a document under `id`, replacing any document already there. Missing fields are
   * empty. A `group` (say, the server a tool comes from) lets a search favour the group.
   */
  add(id: Id, document: Partial<Readonly<Record<Field, string>>>, group?: string): void {
    this.remove(id);
    const fieldCount = this.#fields.length;
    const slot = this.#freeSlots.pop() ?? this.#ids.length;
    this.#reserve(slot + 1);
    const byTerm = this.#postings;
    const own: Postings[] = [];
    for (let field = 0; field < fieldCount; field++) {
      const text = document[this.#fields[field]!];
      const terms = text ? this.#tokenize(text) : [];
      const key = slot * fieldCount + field;
      this.#lengths[key] = terms.length;
      this.#totalLengths[field]! += terms.length;
      for (const term of terms) {
        let postings = byTerm.get(term);
        if (!postings) {
          postings = { term, keys: [], counts: [], documents: 0 };
          byTerm.set(term, postings);
        }
        // While this document is added, its entries are the last ones of every postings.
        const last = postings.keys.length - 1;
        if (postings.keys[last] === key) {
          postings.counts[last]!++;
          continue;
        }
        if (last < 0 || ((postings.keys[last]! / fieldCount) | 0) !== slot) {
          postings.documents++;
          own.push(postings);
        }
        postings.keys.push(key);
        postings.counts.push(1);
      }
    }
    this.#ids[slot] = id;
    this.#postingsOf[slot] = own;
    this.#groupOf[slot] = group === undefined ? 0 : this.#groupNumber(group) + 1;
    this.#slotOf.set(id, slot);
  }

  #groupNumber(group: string): number {
    let number = this.#groupNumbers.get(group);
    if (number === undefined) {
      number = this.#groupNumbers.size;
      this.#groupNumbers.set(group, number);
    }
    return number;
  }

  /** Drops the document under `id`; false when there was none. */
  remove(id: Id): boolean {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return false;
    const fieldCount = this.#fields.length;
    const first = slot * fieldCount;
    for (const postings of this.#postingsOf[slot]!) {
      const { keys, counts } = postings;
      const isOwn = (key: number) => key >= first && key < first + fieldCount;
      let start = 0;
      while (!isOwn(keys[start]!)) start++;
      let end = start + 1;
      while (end < keys.length && isOwn(keys[end]!)) end++;
      keys.splice(start, end - start);
      counts.splice(start, end - start);
      if (--postings.documents === 0) this.#postings.delete(postings.term);
    }
    for (let field = 0; field < fieldCount; field++) {
      this.#totalLengths[field]! -= this.#lengths[first + field]!;
    }
    this.#ids[slot] = undefined;
    this.#postingsOf[slot] = undefined;
    this.#groupOf[slot] = 0;
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
    if (options.groupBoost?.size) this.#boostGroups(matched, options.groupBoost);
    const ranked = this.#rank(matched, limit, options.filter);
    const hits = ranked.map((slot) => ({ id: this.#ids[slot]!, score: scores[slot]! }));
    for (const slot of matched) scores[slot] = 0;
    return hits;
  }

  #boostGroups(matched: number[], boosts: ReadonlyMap<string, number>): void {
    const byNumber = new Float64Array(this.#groupNumbers.size + 1);
    for (const [group, boost] of boosts) {
      const number = this.#groupNumbers.get(group);
      if (number !== undefined) byNumber[number + 1] = boost;
    }
    for (const slot of matched) this.#scores[slot]! += byNumber[this.#groupOf[slot]!]!;
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
    for (const concept of concepts) {
      const only = concept.length === 1 ? concept[0]! : undefined;
      if (only?.postings.length === 1) {
        // Most query terms have no synonyms: their scores go straight to the totals.
        this.#scoreTerm(only.postings[0]!, only.weight, scores, matched, false);
        continue;
      }
      const inConcept: number[] = [];
      for (const { postings, weight } of concept) {
        if (postings.length === 1) {
          this.#scoreTerm(postings[0]!, weight, conceptScores, inConcept, true);
          continue;
        }
        const inAlternative: number[] = [];
        for (const termPostings of postings)
          this.#scoreTerm(termPostings, weight, alternativeScores, inAlternative, false);
        for (const slot of inAlternative) {
          if (conceptScores[slot] === 0) inConcept.push(slot);
          if (alternativeScores[slot]! > conceptScores[slot]!) conceptScores[slot] = alternativeScores[slot]!;
          alternativeScores[slot] = 0;
        }
      }
      for (const slot of inConcept) {
        if (scores[slot] === 0) matched.push(slot);
        scores[slot]! += conceptScores[slot]!;
        conceptScores[slot] = 0;
      }
    }
    return matched;
  }

  /**
   * Adds one term's BM25F score, with this moment's statistics, into `into` (or keeps the
   * better of the two, when `best`) for every slot holding it: its field counts, each
   * weighted and length-normalised, summed, then saturated.
   */
  #scoreTerm(postings: Postings, weight: number, into: Float64Array, matched: number[], best: boolean): void {
    if (weight <= 0) return;
    const { keys, counts } = postings;
    const fieldCount = this.#fields.length;
    const documentCount = this.size;
    const lengths = this.#lengths;
    const fieldWeights = this.#fieldWeights;
    const normalisation = this.#lengthNormalisation;
    const perLength = normalisation.map((b, field) => (b * documentCount) / this.#totalLengths[field]!);
    const k1 = this.#k1;
    const idf =
      weight * Math.log(1 + (documentCount - postings.documents + 0.5) / (postings.documents + 0.5));
    let at = 0;
    while (at < keys.length) {
      const slot = (keys[at]! / fieldCount) | 0;
      const first = slot * fieldCount;
      let count = 0;
      for (; at < keys.length && keys[at]! >= first && keys[at]! < first + fieldCount; at++) {
        const key = keys[at]!;
        const field = key - first;
        const b = normalisation[field]!;
        count += (counts[at]! * fieldWeights[field]!) / (1 - b + perLength[field]! * lengths[key]!);
      }
      if (count <= 0) continue;
      const score = (idf * count * (k1 + 1)) / (k1 + count);
      const previous = into[slot]!;
      if (previous === 0) matched.push(slot);
      into[slot] = best ? Math.max(previous, score) : previous + score;
    }
  }

  #rank(matched: number[], limit: number, filter: ((id: Id) => boolean) | undefined): number[] {
    const candidates = filter ? matched.filter((slot) => filter(this.#ids[slot]!)) : matched;
    const before = (a: number, b: number) => this.#ranksBefore(a, b);
    if (candidates.length <= limit) return [...candidates].sort((a, b) => (before(a, b) ? -1 : 1));
    const scores = this.#scores;
    const top: number[] = [];
    let lowest = Number.NEGATIVE_INFINITY;
    for (const slot of candidates) {
      if (scores[slot]! < lowest || (top.length === limit && !before(slot, top[limit - 1]!))) continue;
      let low = 0;
      let high = top.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (before(slot, top[middle]!)) high = middle;
        else low = middle + 1;
      }
      top.splice(low, 0, slot);
      if (top.length > limit) top.pop();
      if (top.length === limit) lowest = scores[top[limit - 1]!]!;
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
    const groupOf = new Int32Array(capacity);
    groupOf.set(this.#groupOf);
    this.#groupOf = groupOf;
  }
}
