import { ChunkTable } from './chunk-table.js';
import { identifierWords } from './identifier-words.js';
import { stem } from './stem.js';
import { STOPWORDS } from './stopwords.js';
import { TermList } from './term-list.js';
import { TextCache } from './text-cache.js';
import { Vocabulary } from './vocabulary.js';

/** Beyond ASCII, what counts as part of a word; ASCII is classified by character code, for speed. */
const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u;

/**
 * Two capitalised words run together are far more often a product name (GitHub, HubSpot,
 * DevOps, YouTube) than an identifier, and their halves would match unrelated things.
 */
const PRODUCT_NAME = /^\p{Lu}\p{Ll}+\p{Lu}\p{Ll}+$/u;

/** ASCII letters, digits, `_` and `-`: the characters of a chunk. */
const IS_CHUNK_CHARACTER = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const character = String.fromCharCode(code);
  IS_CHUNK_CHARACTER[code] = /[A-Za-z0-9_-]/.test(character) ? 1 : 0;
}

/**
 * Turns text into terms (see `tokenize`) and hands them out as the numbers of its
 * vocabulary, remembering the terms of every chunk of text it has met, so each distinct
 * word is split, lowercased and stemmed once.
 */
export class Tokenizer {
  readonly vocabulary = new Vocabulary();
  readonly #chunks = new ChunkTable();
  readonly #texts = new TextCache();
  readonly #scratch: number[] = [];
  readonly #list = new TermList();

  /**
   * Appends the term numbers of `text` to `into`, giving new terms numbers, and remembers them
   * for the text: documents' texts recur (see `TextCache`), a query's seldom.
   */
  numbers(text: string, into: TermList): void {
    if (this.#texts.appendTerms(text, into)) return;
    const start = into.length;
    this.#sweep(text, into);
    this.#texts.remember(text, into.values, start, into.length);
  }

  /** The terms of `text`, in order. */
  terms(text: string): string[] {
    const numbers = this.#list;
    numbers.length = 0;
    this.#sweep(text, numbers);
    const terms: string[] = new Array(numbers.length);
    for (let at = 0; at < numbers.length; at++) terms[at] = this.vocabulary.termOf(numbers.values[at]!)!;
    return terms;
  }

  /** Lets the vocabulary give back unheld numbers (see `Vocabulary.tidy`), forgetting the texts and chunks that named them. */
  tidy(): void {
    if (!this.vocabulary.tidy()) return;
    this.#chunks.clear();
    this.#texts.clear();
  }

  #sweep(text: string, into: TermList): void {
    const end = text.length;
    const isChunkCharacter = IS_CHUNK_CHARACTER;
    let at = 0;
    while (at < end) {
      const start = at;
      let hash = 0;
      for (; at < end; at++) {
        const code = text.charCodeAt(at);
        if (code < 128 ? isChunkCharacter[code] === 0 : !WORD_CHARACTER.test(text[at]!)) break;
        hash = ChunkTable.hashStep(hash, code);
      }
      if (at === start) at++;
      else if (!this.#chunks.appendTerms(text, start, at, hash, into))
        this.#addChunk(text.slice(start, at), hash, into);
    }
  }

  #addChunk(chunk: string, hash: number, into: TermList): void {
    const numbers = this.#scratch;
    numbers.length = 0;
    for (const term of chunkTerms(chunk)) numbers.push(this.vocabulary.numberOf(term));
    this.#chunks.remember(chunk, hash, numbers);
    for (const number of numbers) into.push(number);
  }
}

/**
 * The tokenizer of `tokenize` and of every index that tokenizes the default way: the words
 * of a catalogue recur across indexes and rebuilds, so what one learnt serves the next.
 */
export const sharedTokenizer = new Tokenizer();

/**
 * Index terms of a text: lowercase words split on non-alphanumerics and on identifier
 * boundaries (`getPullRequest` → get, pull, request), stopwords and single letters dropped,
 * each word stemmed. A compound identifier also yields its joined form
 * (`get_pull_request` → …, getpullrequest), so a query naming a tool exactly matches it best;
 * a product-style name (`GitHub`) stays one word.
 */
export function tokenize(text: string): string[] {
  sharedTokenizer.tidy();
  return sharedTokenizer.terms(text);
}

/**
 * The terms of one chunk (a run of letters, digits, `_` and `-`). A plain word — lowercase
 * perhaps capitalised, all capitals, or all digits — is one term; anything else is split as
 * an identifier into its words, then its joined form.
 */
function chunkTerms(chunk: string): string[] {
  let lower = false;
  let upper = false;
  let innerUpper = false;
  let digit = false;
  let other = false;
  for (let at = 0; at < chunk.length; at++) {
    const code = chunk.charCodeAt(at);
    if (code >= 97 && code <= 122) lower = true;
    else if (code >= 65 && code <= 90) {
      upper = true;
      innerUpper ||= at > 0;
    } else if (code >= 48 && code <= 57) digit = true;
    else other = true;
  }
  const plain = !other && (digit ? !lower && !upper : !(innerUpper && lower));
  if (plain) {
    const term = termOf(chunk.toLowerCase());
    return term === '' ? [] : [term];
  }
  const words = PRODUCT_NAME.test(chunk) ? [chunk] : identifierWords(chunk);
  const terms: string[] = [];
  for (const word of words) {
    const term = termOf(word.toLowerCase());
    if (term !== '') terms.push(term);
  }
  if (words.length > 1) {
    const joined = termOf(words.join('').toLowerCase());
    if (joined !== '') terms.push(joined);
  }
  return terms;
}

/** A word's term: its stem, or '' when it is a stopword or a single letter. */
function termOf(word: string): string {
  const isLetter = word.length === 1 && !(word >= '0' && word <= '9');
  return isLetter || STOPWORDS.has(word) ? '' : stem(word);
}
