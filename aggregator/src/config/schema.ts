import { z } from 'zod';

const serverCommon = {
  disabled: z.boolean().default(false).describe('Keep the entry but do not start the server.'),
  disabledTools: z.array(z.string()).default([]).describe("Tool names (the server's own) to leave out."),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Per-call timeout for this server, in milliseconds (default: callTimeoutMs).'),
  prefix: z
    .boolean()
    .default(true)
    .describe(
      "false: expose this server's tools and prompts under their own names, not <server>__<name>. A name another tool already has falls back to <server>__<name>.",
    ),
};

export const stdioServerSchema = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1).describe('The program to run, e.g. npx or node.'),
  args: z.array(z.string()).default([]),
  env: z
    .record(z.string(), z.string())
    .default({})
    .describe('Environment added to a minimal safe one (PATH, HOME, …).'),
  cwd: z.string().optional(),
  ...serverCommon,
});

export const remoteServerSchema = z.looseObject({
  type: z
    .enum(['http', 'streamable-http', 'sse'])
    .optional()
    .describe('http tries Streamable HTTP, then legacy SSE.'),
  url: z.url().describe('The server endpoint, e.g. https://example.com/mcp.'),
  headers: z.record(z.string(), z.string()).default({}),
  ...serverCommon,
});

export const serverSchema = z.union([stdioServerSchema, remoteServerSchema]);

export const configSchema = z.looseObject({
  $schema: z.string().optional(),
  mcpServers: z
    .record(z.string(), serverSchema)
    .default({})
    .describe('The servers to proxy, in the shape Claude Desktop, Claude Code and Cursor use.'),
  servers: z
    .record(z.string(), serverSchema)
    .optional()
    .describe("VS Code's name for mcpServers; both are merged."),
  exposure: z
    .enum(['all', 'discovery'])
    .default('all')
    .describe(
      'all: list every tool plus the discovery tools; discovery: list only search_tool_bm25, list_my_tools and call_tool.',
    ),
  toolNameMaxLength: z
    .number()
    .int()
    .min(16)
    .max(64)
    .default(48)
    .describe('Longest exposed tool name; longer ones are shortened with a hash suffix.'),
  callTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(300_000)
    .describe('Default per-call timeout (5 minutes).'),
  resultMaxBytes: z
    .number()
    .int()
    .min(1024)
    .default(256_000)
    .describe('Largest tool result passed to a client; bigger ones are cut and marked truncated.'),
});

export type StdioServerConfig = z.infer<typeof stdioServerSchema>;
export type RemoteServerConfig = z.infer<typeof remoteServerSchema>;
export type ServerConfig = StdioServerConfig | RemoteServerConfig;
export type AggregatorConfig = z.infer<typeof configSchema>;

export function isStdioServer(server: ServerConfig): server is StdioServerConfig {
  return 'command' in server && typeof server.command === 'string';
}

/** The JSON Schema shipped as toolmesh.schema.json, so editors complete the config file. */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(configSchema, { io: 'input', target: 'draft-2020-12' }),
    title: 'toolmesh configuration',
  };
}
