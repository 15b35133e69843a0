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

/** Words a request may open with before its verb ("please", "can you", "go ahead and"). */
const LEAD_IN =
  /^\s*(?:(?:please|kindly|can you|could you|would you|go ahead and|i want to|i need to|i'd like to|let's|let us|help me|now|then|just|also)\s+)*/i;
/** How far into a request its verb is looked for: a model puts the service first ("notion update page"). */
const VERB_WITHIN_WORDS = 3;

/**
 * An order to change something ("archive the old branch", "notion update page properties"):
 * the first of the request's first words that is a verb of tool names changes, not reads.
 */
export function asksToChange(request: string): boolean {
  const words =
    request
      .replace(LEAD_IN, '')
      .toLowerCase()
      .match(/[a-z]+/g) ?? [];
  const verb = words
    .slice(0, VERB_WITHIN_WORDS)
    .find((word) => CHANGING_VERBS.has(word) || READING_VERBS.has(word));
  return verb !== undefined && CHANGING_VERBS.has(verb);
}

/**
 * Whether a tool only reads: as its annotations say, else when its name has a reading verb and
 * no changing one (`identifierWords(tool.tool)`); a name with neither says nothing.
 */
export function onlyReads(tool: IndexedTool, nameWords: readonly string[]): boolean {
  const readOnly = tool.annotations?.readOnlyHint;
  if (typeof readOnly === 'boolean') return readOnly;
  const words = nameWords.map((word) => word.toLowerCase());
  return words.some((word) => READING_VERBS.has(word)) && !words.some((word) => CHANGING_VERBS.has(word));
}

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
