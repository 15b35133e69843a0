import { identifierWords } from './identifier-words.js';
import { stem } from './stem.js';
import { STOPWORDS } from './stopwords.js';

/** Runs of letters, digits, `_` and `-`: prose words and identifiers alike. */
const CHUNK = /[\p{L}\p{N}\p{M}_-]+/gu;

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
  for (const chunk of text.match(CHUNK) ?? []) {
    const words = PRODUCT_NAME.test(chunk) ? [chunk] : identifierWords(chunk);
    for (const word of words) addTerm(terms, word.toLowerCase());
    if (words.length > 1) addTerm(terms, words.join('').toLowerCase());
  }
  return terms;
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
