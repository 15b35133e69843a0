/**
 * Literal values a request carries for the tool to use — quoted text, URLs, paths, file
 * names — name things rather than the action wanted, and their words match tools at random.
 * A file name keeps its extension, which says what kind of file it is.
 */
const QUOTED = /(^|[\s(])(?:'[^']+'|"[^"]+"|`[^`]+`|‘[^’]+’|“[^”]+”)(?=$|[\s.,;:!?)])/g;
const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
const FILE_NAME = /(?:[\w.-]+\/)*[\w-]+\.([A-Za-z]\w{0,4})\b/g;
const PATH = /[\w.-]+(?:\/[\w.-]+)+\/?/g;

/** A verb and its particle, perhaps around a pronoun: "sign me out", "roll back", "look it up". */
const PHRASAL_VERB =
  /\b([a-z]+)\s+(?:(?:me|us|it|them|him|her|this|that|everything)\s+)?(out|in|up|off|back|down|over)\b/g;

/** The action a question asks for, since question words themselves are stopwords. */
const QUESTION_INTENTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(?:what|which)\b/i, 'list get'],
  [/\bwho\b/i, 'user'],
  [/\bhow many\b/i, 'count'],
  [/\bwhen\b/i, 'time'],
];

/**
 * Turns a request into search text: literal values dropped, each phrasal verb joined into
 * its one-word form as well ("sign out" → signout, "set up" → setup), and a question given
 * the action it implies ("which boards do we have?" → list).
 */
export function rewriteQuery(request: string): string {
  const text = request.replace(QUOTED, '$1 ').replace(URL, ' ').replace(FILE_NAME, ' $1 ').replace(PATH, ' ');
  const compounds = [...text.toLowerCase().matchAll(PHRASAL_VERB)].map(
    ([, verb, particle]) => verb! + particle!,
  );
  const intents = QUESTION_INTENTS.filter(([question]) => question.test(text)).map(([, intent]) => intent);
  return [text, ...compounds, ...intents].join(' ');
}
