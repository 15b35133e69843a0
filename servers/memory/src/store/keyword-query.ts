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

/**
 * An FTS5 MATCH expression for a natural-language query: its words, each quoted (so no FTS5
 * syntax gets through), joined with OR so that BM25 ranks partial matches instead of dropping them.
 * Null when the query has no word at all.
 */
export function keywordQuery(query: string): string | null {
  const all = [...new Set(words(query))];
  if (all.length === 0) return null;
  const meaningful = all.filter((word) => !STOPWORDS.has(word));
  return (meaningful.length > 0 ? meaningful : all).map((word) => `"${word}"`).join(' OR ');
}
