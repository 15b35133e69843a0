/**
 * The most a query is read: enough for any request for a tool, little enough that a search
 * stays fast (reading a query costs more than linear time in the length of its longest word).
 */
export const READ_CHARACTERS = 300;
export const READ_WORDS = 40;
/** A longer run of characters is a pasted value (a hash, a blob, a token), not a word. */
const LONGEST_WORD = 40;

/** What a search reads of a query, and what it left out. */
export interface ReadQuery {
  text: string;
  /** Said when part of the query was left out: how much, and what was read. */
  ignored?: string;
}

/**
 * The telling part of a query. A model may pass a whole task description, with a pasted log,
 * file or stack trace: what it wants done comes first, so the first paragraph is read (up to a
 * blank line or a code fence), in its first words, and over-long words are passed over.
 */
export function tellingPart(query: string): ReadQuery {
  const paragraph = /^\s*([\s\S]*?)(?:\n\s*\n|```|$)/.exec(query)![1]!;
  const words = paragraph.split(/\s+/).filter((word) => word !== '');
  const read: string[] = [];
  let characters = 0;
  let passedOver = 0;
  for (const word of words) {
    if (word.length > LONGEST_WORD) {
      passedOver++;
      continue;
    }
    if (read.length === READ_WORDS || characters + word.length > READ_CHARACTERS) break;
    read.push(word);
    characters += word.length + 1;
  }
  const text = read.join(' ');
  const whole = query.replace(/\s+/g, ' ').trim();
  if (text === whole) return { text };
  const left = whole.length - text.length;
  const what =
    passedOver > 0
      ? `, passing over ${passedOver} word${passedOver === 1 ? '' : 's'} too long to be one`
      : '';
  return {
    text,
    ignored: `Read the first ${read.length} words of the query ("${text}")${what}; ignored the other ${left} characters. Search with a few words naming the action and the object.`,
  };
}
