import { identifierWords } from './identifier-words.js';
import { stem } from './stem.js';
import { STOPWORDS } from './stopwords.js';

/** Beyond ASCII, what counts as part of a word; ASCII is classified by character code, for speed. */
const WORD_CHARACTER = /[\p{L}\p{N}\p{M}]/u;

/**
 * Two capitalised words run together are far more often a product name (GitHub, HubSpot,
 * DevOps, YouTube) than an identifier, and their halves would match unrelated things.
 */
const PRODUCT_NAME = /^\p{Lu}\p{Ll}+\p{Lu}\p{Ll}+$/u;

/** Stemming dominates tokenizing cost, and vocabularies are small, so stems are remembered. */
const stems = new Map<string, string>();
const MAX_REMEMBERED_STEMS = 100_000;

/**
 * Index terms of a text: lowercase words split on non-alphanumerics and on identifier
 * boundaries (`getPullRequest` → get, pull, request), stopwords and single letters dropped,
 * each word stemmed. A compound identifier also yields its joined form
 * (`get_pull_request` → …, getpullrequest), so a query naming a tool exactly matches it best;
 * a product-style name (`GitHub`) stays one word.
 */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  const end = text.length;
  let at = 0;
  while (at < end) {
    const start = at;
    // Most chunks are plain words (lowercase, perhaps capitalised) and need no splitting.
    let plain = true;
    for (; at < end; at++) {
      const code = text.charCodeAt(at);
      if (code >= 97 && code <= 122) continue;
      if (code >= 65 && code <= 90) {
        if (at > start) plain = false;
        continue;
      }
      if ((code >= 48 && code <= 57) || code === 95 || code === 45) plain = false;
      else if (code < 128 || !WORD_CHARACTER.test(text[at]!)) break;
      else plain = false;
    }
    if (at === start) at++;
    else if (plain) addTerm(terms, text.slice(start, at).toLowerCase());
    else addIdentifier(terms, text.slice(start, at));
  }
  return terms;
}

/** A chunk with separators, digits, inner capitals or letters beyond ASCII. */
function addIdentifier(terms: string[], chunk: string): void {
  const words = PRODUCT_NAME.test(chunk) ? [chunk] : identifierWords(chunk);
  for (const word of words) addTerm(terms, word.toLowerCase());
  if (words.length > 1) addTerm(terms, words.join('').toLowerCase());
}

function addTerm(terms: string[], word: string): void {
  if ((word.length === 1 && !isDigit(word)) || STOPWORDS.has(word)) return;
  terms.push(stemmed(word));
}

function isDigit(character: string): boolean {
  return character >= '0' && character <= '9';
}

function stemmed(word: string): string {
  let result = stems.get(word);
  if (result === undefined) {
    result = stem(word);
    if (stems.size >= MAX_REMEMBERED_STEMS) stems.clear();
    stems.set(word, result);
  }
  return result;
}
