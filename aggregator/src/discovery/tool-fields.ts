import { identifierWords } from '@toolmesh/bm25';
import type { IndexedTool } from './indexed-tool.js';

export type ToolField = 'name' | 'title' | 'description' | 'parameterNames' | 'parameterText' | 'server';

/** Words in server package names that say nothing about what the server is for. */
const GENERIC_SERVER_WORDS = new Set(['mcp', 'server', 'modelcontextprotocol']);

/** The text of each searchable field of a tool. */
export function toolFields(entry: IndexedTool): Record<ToolField, string> {
  const parameters = parametersOf(entry.inputSchema);
  return {
    name: nameWords(entry.tool),
    title: entry.title ?? '',
    description: entry.description ?? '',
    parameterNames: parameters.map(([name]) => name).join(' '),
    parameterText: parameters.map(([, text]) => text).join('\n'),
    server: serverWords(entry.server).join(' '),
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

export function serverWords(server: string): string[] {
  return identifierWords(server).filter((word) => !GENERIC_SERVER_WORDS.has(word.toLowerCase()));
}

/** Each top-level parameter's name, with its description and allowed values as text. */
function parametersOf(schema: object | undefined): [string, string][] {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  if (!properties || typeof properties !== 'object') return [];
  return Object.entries(properties as Record<string, unknown>).map(([name, property]) => {
    const { description, enum: values } = (property ?? {}) as { description?: unknown; enum?: unknown };
    const words = [typeof description === 'string' ? description : ''];
    if (Array.isArray(values)) words.push(values.filter((value) => typeof value === 'string').join(' '));
    return [name, words.join(' ')];
  });
}
