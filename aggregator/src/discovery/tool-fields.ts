import { identifierWords } from '@toolmesh/bm25';
import type { IndexedTool } from './indexed-tool.js';

export type ToolField = 'name' | 'title' | 'description' | 'parameterNames' | 'parameterText' | 'server';

/** Words in server package names that say nothing about what the server is for. */
const GENERIC_SERVER_WORDS = new Set(['mcp', 'server', 'modelcontextprotocol']);

/**
 * The text of each searchable field of a tool. `serverText` is `serverText(entry.server)`,
 * passed in so a registry computes it once per server rather than once per tool.
 */
export function toolFields(entry: IndexedTool, serverText: string): Record<ToolField, string> {
  const parameters = parametersOf(entry.inputSchema);
  return {
    name: nameWords(entry.tool),
    title: entry.title ?? '',
    description: entry.description ?? '',
    parameterNames: parameters.names,
    parameterText: parameters.text,
    server: serverText,
  };
}

/**
 * A tool name as separate words plus the name joined up, spelled out here rather than left
 * to the tokenizer, which keeps product-style names (`GetUser`) whole.
 */
function nameWords(tool: string): string {
  const words = identifierWords(tool);
  return words.length > 1 ? `${words.join(' ')} ${words.join('')}` : tool;
}

/** A server's name as the words that say what it is for, joined by spaces. */
export function serverText(server: string): string {
  return identifierWords(server)
    .filter((word) => !GENERIC_SERVER_WORDS.has(word.toLowerCase()))
    .join(' ');
}

const NO_PARAMETERS = { names: '', text: '' };

/**
 * The top-level parameters' names, space-separated, and their texts (each description with its
 * allowed values), one a line. Built in one pass without intermediate pairs: a registry of
 * thousands of tools runs this for every tool it indexes.
 */
function parametersOf(schema: object | undefined): { names: string; text: string } {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  if (!properties || typeof properties !== 'object') return NO_PARAMETERS;
  const names: string[] = [];
  const texts: string[] = [];
  for (const name of Object.keys(properties)) {
    const property = (properties as Record<string, unknown>)[name];
    const { description, enum: values } = (property ?? {}) as { description?: unknown; enum?: unknown };
    const text = typeof description === 'string' ? description : '';
    names.push(name);
    texts.push(Array.isArray(values) ? `${text} ${stringsOf(values).join(' ')}` : text);
  }
  return { names: names.join(' '), text: texts.join('\n') };
}

function stringsOf(values: unknown[]): string[] {
  return values.filter((value): value is string => typeof value === 'string');
}
