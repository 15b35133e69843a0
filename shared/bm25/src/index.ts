export {
  type Bm25Hit,
  Bm25Index,
  type Bm25Options,
  type FieldText,
  type QueryReach,
  type SearchOptions,
} from './bm25-index.js';
export { identifierWords } from './identifier-words.js';
export type { QueryPart } from './query-concepts.js';
export { stem } from './stem.js';
export { STOPWORDS } from './stopwords.js';
export { tokenize } from './tokenize.js';
