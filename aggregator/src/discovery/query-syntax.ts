/** A tool search query with its `server:<name>` filter taken out. */
export interface ToolQuery {
  text: string;
  server?: string;
}

const SERVER_FILTER = /(?:^|\s)server:(\S+)/i;

/** Splits `server:github create issue` into the filter `github` and the text `create issue`. */
export function parseToolQuery(query: string): ToolQuery {
  const match = SERVER_FILTER.exec(query);
  if (!match) return { text: query.trim() };
  const text = `${query.slice(0, match.index)} ${query.slice(match.index + match[0].length)}`;
  return { text: text.replace(/\s+/g, ' ').trim(), server: match[1]!.toLowerCase() };
}
