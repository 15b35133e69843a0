export { type Bm25Hit, Bm25Index, type Bm25Options, type SearchOptions } from './bm25-index.js';
export { identifierWords } from './identifier-words.js';
export { stem } from './stem.js';
export { STOPWORDS } from './stopwords.js';
export { tokenize } from './tokenize.js';
