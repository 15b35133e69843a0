import { type FieldText, identifierWords } from '@toolmesh/bm25';
import type { IndexedTool } from './indexed-tool.js';

export type ToolField = 'name' | 'title' | 'description' | 'parameterNames' | 'parameterText' | 'server';

/** Words in server package names that say nothing about what the server is for. */
const GENERIC_SERVER_WORDS = new Set(['mcp', 'server', 'modelcontextprotocol']);

/**
 * The text of each searchable field of a tool, given the words of its name
 * (`identifierWords(entry.tool)`) and `serverText(entry.server)`, which a registry works out
 * once for other uses and once per server. Texts of several parts stay in pieces: a registry
 * of thousands of tools runs this for every tool it indexes.
 */
export function toolFields(
  entry: IndexedTool,
  nameWords: readonly string[],
  serverText: string,
): Record<ToolField, FieldText> {
  const parameters = parametersOf(entry.inputSchema);
  return {
    name: namePieces(entry.tool, nameWords),
    title: entry.title ?? '',
    description: entry.description ?? '',
    parameterNames: parameters.names,
    parameterText: parameters.texts,
    server: serverText,
  };
}

/**
 * A tool name as separate words plus the name joined up, spelled out here rather than left
 * to the tokenizer, which keeps product-style names (`GetUser`) whole.
 */
function namePieces(tool: string, words: readonly string[]): FieldText {
  return words.length > 1 ? [...words, words.join('').toLowerCase()] : tool;
}

/** A server's name as the words that say what it is for, joined by spaces. */
export function serverText(server: string): string {
  return identifierWords(server)
    .filter((word) => !GENERIC_SERVER_WORDS.has(word.toLowerCase()))
    .join(' ');
}

const NO_PARAMETERS: { names: readonly string[]; texts: readonly string[] } = { names: [], texts: [] };

/** The top-level parameters' names, and their texts: each description and its allowed values. */
function parametersOf(schema: object | undefined): { names: readonly string[]; texts: readonly string[] } {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  if (!properties || typeof properties !== 'object') return NO_PARAMETERS;
  const names = Object.keys(properties);
  const texts: string[] = [];
  for (const name of names) {
    const property = (properties as Record<string, unknown>)[name];
    const { description, enum: values } = (property ?? {}) as { description?: unknown; enum?: unknown };
    if (typeof description === 'string') texts.push(description);
    if (Array.isArray(values)) for (const value of values) if (typeof value === 'string') texts.push(value);
  }
  return { names, texts };
}
