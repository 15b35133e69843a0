import type { QueryPart } from '@toolmesh/bm25';

/**
 * Literal values a request carries for the tool to use — quoted text, URLs, paths, file
 * names — name things rather than the action wanted, and their words match tools at random.
 * A file name keeps its extension, which says what kind of file it is.
 */
const QUOTED = /(^|[\s(])(?:'[^']+'|"[^"]+"|`[^`]+`|‘[^’]+’|“[^”]+”)(?=$|[\s.,;:!?)])/g;
const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
const FILE_NAME = /(?:[\w.-]+\/)*[\w-]+\.([A-Za-z]\w{0,4})\b/g;
const PATH = /[\w.-]+(?:\/[\w.-]+)+\/?/g;

/**
 * A verb and its particle, perhaps around a pronoun: "sign me out", "roll back", "look it up",
 * "work on".
 */
const PHRASAL_VERB =
  /\b([a-z]+)\s+(?:(?:me|us|it|them|him|her|this|that|everything)\s+)?(out|in|up|off|back|down|over|on)\b/g;

/** The action a question asks for, since question words themselves are stopwords. */
const QUESTION_INTENTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(?:what|which)\b/i, 'list get'],
  [/\bwho\b/i, 'user'],
  [/\bhow many\b/i, 'count'],
  [/\bwhen\b/i, 'time'],
];

/**
 * Where a request moves on from what it wants done to where, how or why: before a
 * preposition or a word that opens a clause, and at punctuation that ends a phrase.
 */
const PHRASE_BREAK =
  /\b(?=(?:in|on|of|for|from|with|to|into|onto|at|by|about|before|after|until|while|during|because|so|that|who|which|without|since|saying)\b)|[:;,]/gi;

/**
 * Requests say what they want first ("capture a backup", "hit Escape") and then narrow it
 * down or give the reason ("…of the prod db before the upgrade", "…to close the modal"):
 * each later phrase counts this much less than the one before, down to `LATEST_PHRASE_WEIGHT`.
 */
const PHRASE_WEIGHT_STEP = 0.3;
const LATEST_PHRASE_WEIGHT = 0.4;

/** A request without the literal values it carries, a file name kept as the kind of file it names. */
export function withoutValues(request: string): string {
  return request.replace(QUOTED, '$1 ').replace(URL, ' ').replace(FILE_NAME, ' file $1 ').replace(PATH, ' ');
}

/**
 * Turns a request into weighted search text: literal values dropped, its phrases weighed by
 * their order, each phrasal verb joined into its one-word form as well ("sign out" →
 * signout, "set up" → setup), and a question given the action it implies ("which boards do
 * we have?" → list).
 */
export function rewriteQuery(request: string): QueryPart[] {
  const text = withoutValues(request);
  const phrases: { text: string; start: number; weight: number }[] = [];
  let start = 0;
  for (const phraseBreak of [...text.matchAll(PHRASE_BREAK), { index: text.length, 0: '' }]) {
    const phrase = text.slice(start, phraseBreak.index);
    if (phrase.trim() !== '') {
      const weight = Math.max(LATEST_PHRASE_WEIGHT, 1 - PHRASE_WEIGHT_STEP * phrases.length);
      phrases.push({ text: phrase, start, weight });
    }
    start = phraseBreak.index + phraseBreak[0].length;
  }
  /** The weight of the phrase that holds `text[index]`. */
  const weightAt = (index: number) => phrases.findLast((phrase) => phrase.start <= index)?.weight ?? 1;
  const parts: QueryPart[] = phrases.map(({ text, weight }) => ({ text, weight }));
  for (const { index, 1: verb, 2: particle } of text.toLowerCase().matchAll(PHRASAL_VERB)) {
    parts.push({ text: verb! + particle!, weight: weightAt(index) });
  }
  for (const [question, intent] of QUESTION_INTENTS) {
    const asked = question.exec(text);
    if (asked) parts.push({ text: intent, weight: 1 });
  }
  return parts;
}
