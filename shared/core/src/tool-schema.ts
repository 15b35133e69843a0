import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { META_KEYS } from './actions.js';
import { scopedInput } from './calling-scope.js';
import type { AnyToolDefinition } from './define-tool.js';

type JsonSchemaObject = Tool['inputSchema'];

function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchemaObject {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
  });
  return json as JsonSchemaObject;
}

const listEntries = new WeakMap<AnyToolDefinition, Tool>();

/** The `tools/list` entry of a definition, with its policy facts in `_meta`; computed once. */
export function toolListEntry(definition: AnyToolDefinition): Tool {
  const cached = listEntries.get(definition);
  if (cached) return cached;
  const entry: Tool = {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: toJsonSchema(scopedInput(definition), 'input'),
    ...(definition.output ? { outputSchema: toJsonSchema(definition.output, 'output') } : {}),
    annotations: { title: definition.title, ...definition.annotations },
    _meta: {
      [META_KEYS.actions]: [...definition.actions],
      [META_KEYS.requiresApproval]: definition.requiresApproval ?? false,
      [META_KEYS.workspaceScoped]: definition.workspaceScoped ?? false,
    },
  };
  listEntries.set(definition, entry);
  return entry;
}
