import { identifierWords } from './identifier-words.js';
import { hashStep, rememberedTerm, rememberTerm } from './plain-words.js';
import { stem } from './stem.js';
import { STOPWORDS } from './stopwords.js';

/** Beyond ASCII, what counts as part of a word; ASCII is classified by character code, for speed. */
const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u;

/**
 * Two capitalised words run together are far more often a product name (GitHub, HubSpot,
 * DevOps, YouTube) than an identifier, and their halves would match unrelated things.
 */
const PRODUCT_NAME = /^\p{Lu}\p{Ll}+\p{Lu}\p{Ll}+$/u;

/** The terms of each identifier-like chunk met so far. */
const identifierTerms = new Map<string, string[]>();
/** The term of each word beyond ASCII, or '' for a word that is dropped. */
const wideTerms = new Map<string, string>();
const MAX_REMEMBERED_WORDS = 100_000;

/**
 * Index terms of a text: lowercase words split on non-alphanumerics and on identifier
 * boundaries (`getPullRequest` → get, pull, request), stopwords and single letters dropped,
 * each word stemmed. A compound identifier also yields its joined form
 * (`get_pull_request` → …, getpullrequest), so a query naming a tool exactly matches it best;
 * a product-style name (`GitHub`) stays one word.
 */
export function tokenize(text: string): string[] {
  const found: string[] = [];
  const end = text.length;
  let at = 0;
  while (at < end) {
    const start = at;
    // Most chunks are plain words, needing no split: lowercase perhaps capitalised, all
    // capitals, or all digits. They are hashed as they are scanned, to be looked up unsliced.
    let lower = false;
    let upper = false;
    let innerUpper = false;
    let digit = false;
    let other = false;
    let hash = 0;
    for (; at < end; at++) {
      const code = text.charCodeAt(at);
      if (code >= 97 && code <= 122) lower = true;
      else if (code >= 65 && code <= 90) {
        upper = true;
        innerUpper ||= at > start;
      } else if (code >= 48 && code <= 57) digit = true;
      else if (code === 95 || code === 45 || (code >= 128 && WORD_CHARACTER.test(text[at]!))) other = true;
      else break;
      hash = hashStep(hash, code | 32);
    }
    const plain = !other && (digit ? !lower && !upper : !(innerUpper && lower));
    if (at === start) at++;
    else if (plain) addPlainWord(found, text, start, at, hash);
    else addIdentifier(found, text.slice(start, at));
  }
  return found;
}

function addPlainWord(into: string[], text: string, start: number, end: number, hash: number): void {
  let term = rememberedTerm(text, start, end, hash);
  if (term === undefined) {
    const word = text.slice(start, end).toLowerCase();
    term = termOf(word);
    rememberTerm(word, hash, term);
  }
  if (term !== '') into.push(term);
}

/**
 * A chunk with separators, digits, inner capitals or letters beyond ASCII. Parameter and
 * field names recur across a catalogue, so each chunk's terms are remembered whole.
 */
function addIdentifier(into: string[], chunk: string): void {
  let terms = identifierTerms.get(chunk);
  if (terms === undefined) {
    terms = identifierTermsOf(chunk);
    if (identifierTerms.size >= MAX_REMEMBERED_WORDS) identifierTerms.clear();
    identifierTerms.set(chunk, terms);
  }
  for (const term of terms) into.push(term);
}

/** Its words as plain words, then its joined form, which is rarely met again and so not remembered alone. */
function identifierTermsOf(chunk: string): string[] {
  const terms: string[] = [];
  const words = PRODUCT_NAME.test(chunk) ? [chunk] : identifierWords(chunk);
  for (const word of words) {
    const lowercase = word.toLowerCase();
    if (isAscii(lowercase)) addPlainWord(terms, lowercase, 0, lowercase.length, hashOf(lowercase));
    else addWideWord(terms, lowercase);
  }
  if (words.length > 1) {
    const joined = termOf(words.join('').toLowerCase());
    if (joined !== '') terms.push(joined);
  }
  return terms;
}

function addWideWord(into: string[], word: string): void {
  let term = wideTerms.get(word);
  if (term === undefined) {
    term = termOf(word);
    if (wideTerms.size >= MAX_REMEMBERED_WORDS) wideTerms.clear();
    wideTerms.set(word, term);
  }
  if (term !== '') into.push(term);
}

function hashOf(word: string): number {
  let hash = 0;
  for (let at = 0; at < word.length; at++) hash = hashStep(hash, word.charCodeAt(at));
  return hash;
}

function isAscii(word: string): boolean {
  for (let at = 0; at < word.length; at++) if (word.charCodeAt(at) > 127) return false;
  return true;
}

/** A word's term: its stem, or '' when it is a stopword or a single letter. */
function termOf(word: string): string {
  const isLetter = word.length === 1 && !(word >= '0' && word <= '9');
  return isLetter || STOPWORDS.has(word) ? '' : stem(word);
}
