import type { AnyToolDefinition } from './define-tool.js';
import { toolListEntry } from './tool-schema.js';

interface PropertySchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  items?: PropertySchema;
  anyOf?: PropertySchema[];
  oneOf?: PropertySchema[];
}

function typeOf(schema: PropertySchema): string {
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  if (schema.type === 'array') return `${schema.items ? typeOf(schema.items) : 'any'}[]`;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return variants.map(typeOf).join(' \\| ');
  return Array.isArray(schema.type) ? schema.type.join(' \\| ') : (schema.type ?? 'object');
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
}

function hints(tool: AnyToolDefinition): string {
  const { annotations } = tool;
  const names = (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const).filter(
    (hint) => annotations[hint],
  );
  return names.length > 0 ? names.join(', ') : '—';
}

/**
 * The Markdown reference of a server's tools, rendered from the same definitions the server
 * serves, so the docs cannot drift from the code.
 */
export function renderToolReference(
  server: { name: string; summary: string },
  tools: readonly AnyToolDefinition[],
): string {
  const lines = [
    `# ${server.name}`,
    '',
    '<!-- Generated from the tool definitions by scripts/generate-docs.mjs; do not edit by hand. -->',
    '',
    server.summary,
    '',
    '| tool | what it does | action classes | hints |',
    '| --- | --- | --- | --- |',
    ...tools.map(
      (tool) =>
        `| [\`${tool.name}\`](#${tool.name}) | ${cell(tool.title)} | ${tool.actions.join(', ')} | ${hints(tool)} |`,
    ),
    '',
  ];
  for (const tool of tools) {
    const entry = toolListEntry(tool);
    const properties = (entry.inputSchema.properties ?? {}) as Record<string, PropertySchema>;
    const required = new Set((entry.inputSchema.required as string[] | undefined) ?? []);
    lines.push(`## ${tool.name}`, '', `**${tool.title}.** ${tool.description}`, '');
    lines.push(
      `Action classes: ${tool.actions.map((action) => `\`${action}\``).join(', ')}. Requires approval: ${tool.requiresApproval ? 'yes' : 'no'}. Workspace-scoped: ${tool.workspaceScoped ? 'yes' : 'no'}.`,
      '',
    );
    const rows = Object.entries(properties);
    if (rows.length === 0) {
      lines.push('No arguments.', '');
      continue;
    }
    lines.push('| argument | type | required | default | description |', '| --- | --- | --- | --- | --- |');
    for (const [name, schema] of rows) {
      const fallback = schema.default === undefined ? '' : `\`${JSON.stringify(schema.default)}\``;
      lines.push(
        `| \`${name}\` | ${typeOf(schema)} | ${required.has(name) ? 'yes' : 'no'} | ${fallback} | ${cell(schema.description ?? '')} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}
