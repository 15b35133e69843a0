/**
 * `getMoneyField` → `get money field`, `parse_HTTPResponse2` → `parse http response 2`. FTS5's
 * tokenizers do not split identifiers and better-sqlite3 cannot register a custom one, so the
 * split form is stored in its own column and queries are split the same way.
 */
export function splitIdentifierWords(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toLowerCase();
}
