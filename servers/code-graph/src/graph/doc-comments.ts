import type { SyntaxNode } from './syntax.js';

/** `/** Multiplies. *\/` → `Multiplies.`; a block of `//` or `#` lines → their text. */
export function cleanComment(text: string): string {
  return text
    .replace(/^\/\*\*?/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*(\*|\/\/+|#+)\s?/, '').trimEnd())
    .join('\n')
    .trim();
}

/**
 * The comment directly above a declaration (no blank line between), as the doc of it. `/**`
 * blocks win; a run of line comments counts too, since many codebases document that way.
 */
export function leadingComment(declaration: SyntaxNode): string {
  const lines: string[] = [];
  let expectedEndRow = declaration.startPosition.row - 1;
  for (let sibling = declaration.previousNamedSibling; sibling; sibling = sibling.previousNamedSibling) {
    if (!COMMENT_NODES.has(sibling.type) || lastRowOf(sibling) < expectedEndRow) break;
    const text = sibling.text;
    if (text.startsWith('/**')) return cleanComment(text).slice(0, 1000);
    if (!text.startsWith('//') && !text.startsWith('#')) break;
    lines.unshift(cleanComment(text));
    expectedEndRow = sibling.startPosition.row - 1;
  }
  return lines.join('\n').slice(0, 1000);
}

/** Comment node types: most grammars have `comment`; Java's and Rust's split line and block comments. */
const COMMENT_NODES = new Set(['comment', 'line_comment', 'block_comment']);

/** The last row with comment text: Rust's line comments take in the newline that ends them. */
function lastRowOf(comment: SyntaxNode): number {
  const end = comment.endPosition;
  return end.column === 0 && end.row > comment.startPosition.row ? end.row - 1 : end.row;
}
