import type { IndexedTool } from './indexed-tool.js';

/** A question ("what's open?", "which PDFs…", "who wrote…") asks to find out, not to change anything. */
const QUESTION = /^\s*(?:what|which|who|whose|where|when|how)\b|\?\s*$/i;

/** Verbs of tool names that change something, for tools whose annotations do not say. */
const CHANGING_VERBS = new Set(
  'create add new insert update edit modify patch set delete remove drop archive unarchive write post send put move rename merge push commit close complete assign rotate revoke logout start stop kill cancel upload import replace apply fill click press type navigate'.split(
    ' ',
  ),
);
const READING_VERBS = new Set(
  'get list read search find fetch show view retrieve query describe lookup count check inspect display download export'.split(
    ' ',
  ),
);

export function asksToFindOut(request: string): boolean {
  return QUESTION.test(request);
}

/**
 * Whether a tool changes things: as its annotations say, else as the verbs of its name
 * (`identifierWords(tool.tool)`) suggest.
 */
export function changesThings(tool: IndexedTool, nameWords: readonly string[]): boolean {
  const readOnly = tool.annotations?.readOnlyHint;
  if (typeof readOnly === 'boolean') return !readOnly;
  const words = nameWords.map((word) => word.toLowerCase());
  return words.some((word) => CHANGING_VERBS.has(word)) && !words.some((word) => READING_VERBS.has(word));
}
