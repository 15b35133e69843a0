/** Words too common to rank by; dropped from keyword queries unless nothing else is left. */
const STOPWORDS = new Set(
  'a an and are as at be by do does for from has have how i in is it its of on or our that the this to was we were what when where which who why will with you your'.split(
    ' ',
  ),
);

/** The words of a text, lower-cased: letters and digits in any script. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The distinct words of a query worth searching for: all of them when every one is a stopword. */
export function queryTerms(query: string): string[] {
  const all = [...new Set(words(query))];
  const meaningful = all.filter((word) => !STOPWORDS.has(word));
  return meaningful.length > 0 ? meaningful : all;
}
