import { Postings } from './postings.js';
import { type Concept, type QueryPart, queryConcepts } from './query-concepts.js';
import { TermList } from './term-list.js';
import { tokenize as defaultTokenize, sharedTokenizer } from './tokenize.js';
import { Vocabulary } from './vocabulary.js';

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
   * An expansion given as a part counts its own weight instead of `expansionWeight`.
   */
  expand?: (term: string) => readonly (string | QueryPart)[];
  /** How much an expansion counts next to the query's own term; default 0.5. */
  expansionWeight?: number;
  /** Only documents it accepts are ranked. */
  filter?: (id: Id) => boolean;
  /** Extra score for the documents of some groups (see `add`), added to those that match the query. */
  groupBoost?: ReadonlyMap<string, number>;
}

/** A field's text, whole or in pieces (which spares joining them: a piece boundary separates words). */
export type FieldText = string | readonly string[];

/** How a query meets an index (see `Bm25Index.reach`). */
export interface QueryReach {
  /**
   * What a document matching every term of the query at saturation would score, counting the
   * terms no document holds as the rarest: a hit's score over it is the share of the query's
   * meaning that the hit explains.
   */
  fullScore: number;
  /** The query's terms that no document holds, nor any of their expansions. */
  unmatched: string[];
}

export interface Bm25Hit<Id> {
  id: Id;
  score: number;
}

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
  /** Tokenizes queries and expansions. */
  readonly #tokenize: (text: string) => string[];
  /** Turns a document's text into term numbers. */
  readonly #numbers: (text: string, into: TermList) => void;
  /** The shared tokenizer's, unless the index was given its own tokenizer. */
  readonly #vocabulary: Vocabulary;
  /** Lets the vocabulary give back numbers no index holds; never while a document is being added. */
  readonly #tidy: () => void;
  /** The index holds the numbers of the terms some document of it holds. */
  readonly #postings: Postings;
  readonly #termList = new TermList();
  readonly #slotOf = new Map<Id, number>();
  readonly #ids: (Id | undefined)[] = [];
  /** Per slot, the numbers of the terms its document holds. */
  readonly #termsOf: (number[] | undefined)[] = [];
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
    this.#postings = new Postings();
    const tokenize = options.tokenize;
    if (tokenize) {
      const vocabulary = new Vocabulary();
      this.#vocabulary = vocabulary;
      this.#numbers = (text, into) => {
        for (const term of tokenize(text)) into.push(vocabulary.numberOf(term));
      };
      this.#tidy = () => vocabulary.tidy();
    } else {
      this.#vocabulary = sharedTokenizer.vocabulary;
      this.#numbers = (text, into) => sharedTokenizer.numbers(text, into);
      this.#tidy = () => sharedTokenizer.tidy();
    }
    this.#tokenize = tokenize ?? defaultTokenize;
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
  add(id: Id, document: Partial<Readonly<Record<Field, FieldText>>>, group?: string): void {
    this.remove(id);
    this.#tidy();
    const fieldCount = this.#fields.length;
    const slot = this.#freeSlots.pop() ?? this.#ids.length;
    this.#reserve(slot + 1);
    const postings = this.#postings;
    const terms = this.#termList;
    const own: number[] = [];
    const documentStart = slot * fieldCount;
    for (let field = 0; field < fieldCount; field++) {
      const text = document[this.#fields[field]!];
      terms.length = 0;
      if (typeof text === 'string') this.#numbers(text, terms);
      else if (text) for (const piece of text) this.#numbers(piece, terms);
      const key = documentStart + field;
      const count = terms.length;
      this.#lengths[key] = count;
      this.#totalLengths[field]! += count;
      const numbers = terms.values;
      for (let at = 0; at < count; at++) {
        const term = numbers[at]!;
        if (!postings.add(term, key, documentStart)) continue;
        own.push(term);
        if (postings.documents(term) === 1) this.#vocabulary.hold(term);
      }
    }
    this.#ids[slot] = id;
    this.#termsOf[slot] = own;
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
    for (const term of this.#termsOf[slot]!) {
      if (this.#postings.drop(term, slot, fieldCount) === 0) this.#vocabulary.letGo(term);
    }
    for (let field = 0; field < fieldCount; field++) {
      this.#totalLengths[field]! -= this.#lengths[first + field]!;
    }
    this.#ids[slot] = undefined;
    this.#termsOf[slot] = undefined;
    this.#groupOf[slot] = 0;
    this.#slotOf.delete(id);
    this.#freeSlots.push(slot);
    return true;
  }

  /**
   * The best documents for `query`, best first; equal scores are ordered by id. A query in
   * parts weighs each part's terms by its weight.
   */
  search(query: string | readonly QueryPart[], options: SearchOptions<Id> = {}): Bm25Hit<Id>[] {
    const limit = options.limit ?? 10;
    if (limit <= 0 || this.size === 0) return [];
    const concepts = queryConcepts(query, {
      tokenize: this.#tokenize,
      held: (term) => this.#numberHeld(term),
      expand: options.expand,
      expansionWeight: options.expansionWeight ?? 0.5,
    });
    const matched = this.#score(concepts);
    const scores = this.#scores;
    if (options.groupBoost?.size) this.#boostGroups(matched, options.groupBoost);
    const ranked = this.#rank(matched, limit, options.filter);
    const hits = ranked.map((slot) => ({ id: this.#ids[slot]!, score: scores[slot]! }));
    for (const slot of matched) scores[slot] = 0;
    return hits;
  }

  /** How `query` meets this index, with the same options as `search` (see `QueryReach`). */
  reach(query: string | readonly QueryPart[], options: SearchOptions<Id> = {}): QueryReach {
    const unmatched: string[] = [];
    let fullScore = 0;
    const saturated = this.#k1 + 1;
    const documentCount = this.size;
    const idf = (documents: number) => Math.log(1 + (documentCount - documents + 0.5) / (documents + 0.5));
    const concepts = queryConcepts(query, {
      tokenize: this.#tokenize,
      held: (term) => this.#numberHeld(term),
      expand: options.expand,
      expansionWeight: options.expansionWeight ?? 0.5,
      unmatched: (term, weight) => {
        unmatched.push(term);
        fullScore += weight * idf(0) * saturated;
      },
    });
    for (const { alternatives, weight } of concepts) {
      let best = 0;
      for (const alternative of alternatives) {
        let sum = 0;
        for (const term of alternative.terms) sum += idf(this.#postings.documents(term));
        best = Math.max(best, alternative.weight * sum);
      }
      fullScore += weight * best * saturated;
    }
    return { fullScore, unmatched };
  }

  #boostGroups(matched: number[], boosts: ReadonlyMap<string, number>): void {
    const byNumber = new Float64Array(this.#groupNumbers.size + 1);
    for (const [group, boost] of boosts) {
      const number = this.#groupNumbers.get(group);
      if (number !== undefined) byNumber[number + 1] = boost;
    }
    for (const slot of matched) this.#scores[slot]! += byNumber[this.#groupOf[slot]!]!;
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
    for (const { alternatives, weight: conceptWeight } of concepts) {
      const only = alternatives.length === 1 ? alternatives[0]! : undefined;
      if (only?.terms.length === 1) {
        // Most query terms have no synonyms: their scores go straight to the totals.
        this.#scoreTerm(only.terms[0]!, only.weight * conceptWeight, scores, matched, false);
        continue;
      }
      const inConcept: number[] = [];
      for (const { terms, weight: alternativeWeight } of alternatives) {
        const weight = alternativeWeight * conceptWeight;
        if (terms.length === 1) {
          this.#scoreTerm(terms[0]!, weight, conceptScores, inConcept, true);
          continue;
        }
        const inAlternative: number[] = [];
        for (const term of terms) this.#scoreTerm(term, weight, alternativeScores, inAlternative, false);
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
  #scoreTerm(term: number, weight: number, into: Float64Array, matched: number[], best: boolean): void {
    if (weight <= 0) return;
    const postings = this.#postings;
    const entries = postings.entries;
    const fieldCount = this.#fields.length;
    const documentCount = this.size;
    const lengths = this.#lengths;
    const fieldWeights = this.#fieldWeights;
    const normalisation = this.#lengthNormalisation;
    const perLength = normalisation.map((b, field) => (b * documentCount) / this.#totalLengths[field]!);
    const k1 = this.#k1;
    const documents = postings.documents(term);
    const idf = weight * Math.log(1 + (documentCount - documents + 0.5) / (documents + 0.5));
    const end = (postings.start(term) + postings.length(term)) * 2;
    let at = postings.start(term) * 2;
    while (at < end) {
      const slot = (entries[at]! / fieldCount) | 0;
      const first = slot * fieldCount;
      let count = 0;
      for (; at < end && entries[at]! >= first && entries[at]! < first + fieldCount; at += 2) {
        const key = entries[at]!;
        const field = key - first;
        const b = normalisation[field]!;
        count += (entries[at + 1]! * fieldWeights[field]!) / (1 - b + perLength[field]! * lengths[key]!);
      }
      if (count <= 0) continue;
      const score = (idf * count * (k1 + 1)) / (k1 + count);
      const previous = into[slot]!;
      if (previous === 0) matched.push(slot);
      into[slot] = best ? Math.max(previous, score) : previous + score;
    }
  }

  /** The number of `term` when some document holds it. */
  #numberHeld(term: string): number | undefined {
    const number = this.#vocabulary.find(term);
    return number !== undefined && this.#postings.documents(number) > 0 ? number : undefined;
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
