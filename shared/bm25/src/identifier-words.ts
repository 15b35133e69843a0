/**
 * The words of one identifier-like chunk, in order and as written: separators `_` and `-`
 * split, and so do case and digit boundaries. An acronym stays whole, with its plural
 * ("HTTPServer" → HTTP, Server; "listPDFs" → list, PDFs).
 */
const WORD = /\p{Lu}{2,}s(?!\p{Ll})|\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|[\p{L}\p{M}]+/gu;

export function identifierWords(chunk: string): string[] {
  return chunk.match(WORD) ?? [];
}
