/** The same split for chunks beyond ASCII, which are rare enough to afford a regular expression. */
const WORD = /\p{Lu}{2,}s(?!\p{Ll})|\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|[\p{L}\p{M}]+/gu;
const ASCII = /^[\x00-\x7f]*$/;

/**
 * The words of one identifier-like chunk, in order and as written: separators `_` and `-`
 * split, and so do case and digit boundaries. An acronym stays whole, with its plural
 * ("HTTPServer" → HTTP, Server; "listPDFs" → list, PDFs).
 */
export function identifierWords(chunk: string): string[] {
  return ASCII.test(chunk) ? asciiWords(chunk) : (chunk.match(WORD) ?? []);
}

// Tool catalogues are full of identifiers, so ASCII ones are split by character code.
function asciiWords(chunk: string): string[] {
  const words: string[] = [];
  const end = chunk.length;
  let at = 0;
  while (at < end) {
    const code = chunk.charCodeAt(at);
    let next = at + 1;
    if (isDigit(code)) {
      while (next < end && isDigit(chunk.charCodeAt(next))) next++;
    } else if (isLower(code)) {
      while (next < end && isLower(chunk.charCodeAt(next))) next++;
    } else if (isUpper(code)) {
      while (next < end && isUpper(chunk.charCodeAt(next))) next++;
      const capitals = next - at;
      const after = chunk.charCodeAt(next);
      if (capitals === 1) {
        while (next < end && isLower(chunk.charCodeAt(next))) next++;
      } else if (after === 115 /* s */ && !isLower(chunk.charCodeAt(next + 1))) {
        next++;
      } else if (isLower(after)) {
        next--;
      }
    } else {
      at = next;
      continue;
    }
    words.push(chunk.slice(at, next));
    at = next;
  }
  return words;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isLower(code: number): boolean {
  return code >= 97 && code <= 122;
}

function isUpper(code: number): boolean {
  return code >= 65 && code <= 90;
}
