import { ACTION_CLASSES } from '@toolmesh/core';
import { z } from 'zod';
import { tokenNameProblem } from '../auth/token-name.js';
import { PROGRESS_STRETCH } from '../session-server/call-deadline.js';
import { AUDIT_COMMITS } from '../state/state.js';
import { DISCOVERY_DEFAULTS, discoverySchema } from './discovery-schema.js';

/** How long one start of a server may take when its config does not say: see connectTimeoutMs. */
export const CONNECT_TIMEOUT_MS = 30_000;

const serverCommon = {
  disabled: z.boolean().default(false).describe('Keep the entry but do not start the server.'),
  disabledTools: z.array(z.string()).default([]).describe("Tool names (the server's own) to leave out."),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'Per-call timeout for this server, in milliseconds (default: callTimeoutMs). Progress extends it as it does callTimeoutMs.',
    ),
  connectTimeoutMs: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      `How long one start of this server may take, in milliseconds, from launching it (or reaching its URL) to its listed tools (default ${CONNECT_TIMEOUT_MS}); past it the start is abandoned and retried with backoff. Raise it for a server slow on its first run (a package download).`,
    ),
  protocol: z
    .enum(['newest', '2025'])
    .optional()
    .describe(
      "The protocol revision toolmesh speaks to this server: newest (the default: 2026-07-28 when the server answers server/discover, else a 2025 one) or 2025 (the initialize handshake and a session, for a server that serves both but follows its client's roots or asks for sampling only in a 2025 session).",
    ),
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
  sandbox: z
    .enum(['required', 'preferred', 'off'])
    .default('off')
    .describe(
      'Run the server in a bubblewrap sandbox (Linux): required refuses to start it without bwrap; preferred starts it unsandboxed with a warning.',
    ),
  network: z
    .boolean()
    .default(false)
    .describe('In a sandbox, whether the server may use the network (feeds and rigs need it).'),
  roots: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'In a sandbox, the folders the server may see; relative ones are relative to the config file (default: its --root arguments, which for a per-workspace instance include its workspace roots; else none).',
    ),
  writableRoots: z
    .boolean()
    .default(false)
    .describe(
      'In a sandbox, whether the server may write to its roots (only for servers whose tools write).',
    ),
  shareProcess: z
    .boolean()
    .optional()
    .describe(
      'Run this first-party server in a process shared with the other first-party servers that share one and have the same sandbox settings (roots, network, env, cwd), instead of a process of its own (default: shareProcesses). Saves the memory of a Node process per server; gives up the isolation between them (see docs/aggregator.md).',
    ),
  perWorkspace: z
    .boolean()
    .default(false)
    .describe(
      "Run one instance per workspace it serves, with --root <dir> appended to args for each of the workspace's roots (as fs, git and code-graph take them).",
    ),
  workspaceScoped: z
    .boolean()
    .default(false)
    .describe(
      'The server keeps each workspace apart itself (as tickets and memory do): --workspace <id> is appended to args for each workspace it serves, so one shared process serves them all (a perWorkspace instance gets its own id).',
    ),
  ...serverCommon,
});

export const remoteServerSchema = z.looseObject({
  type: z
    .enum(['http', 'streamable-http', 'sse'])
    .optional()
    .describe('http tries Streamable HTTP, then legacy SSE.'),
  url: z
    .url({
      protocol: /^https?$/,
      error: 'expected an http:// or https:// URL, e.g. http://127.0.0.1:8080/mcp',
    })
    .describe('The server endpoint, e.g. https://example.com/mcp.'),
  headers: z.record(z.string(), z.string()).default({}),
  ...serverCommon,
});

export const serverSchema = z.union([stdioServerSchema, remoteServerSchema]);

const ruleSetSchema = z.strictObject({
  tools: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'Tool-name globs (* and ?), matched against the exposed name (fs__write_file) and the own name (write_file).',
    ),
  actions: z
    .array(z.enum(ACTION_CLASSES))
    .default([])
    .describe('Action classes, as tools declare them in _meta toolmesh/actions.'),
});

const modeSchema = z.strictObject({
  description: z.string().optional(),
  allow: ruleSetSchema
    .optional()
    .describe('When given, the mode is an allowlist: only these tools and classes are allowed.'),
  deny: ruleSetSchema.default({ tools: [], actions: [] }),
  confirm: ruleSetSchema
    .default({ tools: [], actions: [] })
    .describe('Calls that run only once a person approves them.'),
  exitTo: z.string().optional().describe('The mode an approved exit_plan_mode switches to.'),
});

/** Names that are endpoint paths (/mcp/all, /mcp/discovery), so no mode may take them. */
const RESERVED_MODE_NAMES = ['all', 'discovery'];

const workspaceSchema = z.strictObject({
  name: z.string().min(1).optional().describe('A readable name (default: the id).'),
  roots: z
    .array(z.string().min(1))
    .min(1)
    .describe('Folders of the workspace; relative ones are relative to the config file.'),
  servers: z
    .array(z.string().min(1))
    .optional()
    .describe('The servers that serve it (default: every server).'),
});

const tokenEntrySchema = z.strictObject({
  name: z
    .string()
    .refine((name) => tokenNameProblem(name) === undefined, {
      error: (issue) => tokenNameProblem(String(issue.input)) ?? 'not a token name',
    })
    .describe('The identity the token stands for; servers see it as toolmesh/agent.'),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'the sha256 of the token, 64 lowercase hex digits')
    .describe('Hash of the token (toolmesh token create prints it); the token itself is never stored.'),
  workspaces: z.array(z.string().min(1)).optional().describe('The workspaces it may use (default: all).'),
  modes: z.array(z.string().min(1)).optional().describe('The modes it may use (default: all).'),
  approver: z.boolean().default(false).describe('Whether it may decide approvals.'),
});

const authSchema = z.strictObject({
  required: z
    .boolean()
    .default(true)
    .describe(
      'false turns HTTP authentication off; allowed only when listening on loopback, where every local program can then call toolmesh.',
    ),
  tokens: z
    .array(tokenEntrySchema)
    .default([])
    .describe('Tokens by hash, beside those `toolmesh token create` keeps in the data directory.'),
  requestsPerMinute: z
    .number()
    .int()
    .positive()
    .default(1200)
    .describe('Requests each token may make per minute; over it, 429 with Retry-After.'),
});

const httpSchema = z.strictObject({
  maxBodyBytes: z
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024)
    .describe('Largest request body; a bigger one gets 413 before it is read.'),
  allowedOrigins: z
    .array(z.string().regex(/^https?:\/\/[^/]+$/, 'an origin is scheme://host[:port]'))
    .default([])
    .describe('Browser origins allowed besides loopback ones; any other Origin gets 403.'),
});

const auditSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe(
      'false records nothing (to measure what the audit costs, or where another layer keeps the log).',
    ),
  retentionDays: z
    .number()
    .positive()
    .default(30)
    .describe('How long audit records are kept; older ones are deleted.'),
});

const stateSchema = z.strictObject({
  redis: z
    .string()
    .regex(/^rediss?:\/\//, 'a Redis URL starts with redis:// or rediss://')
    .optional()
    .describe(
      `Redis URL (redis://[user:password@]host:6379[/db]) for what replicas share: sessions, approvals, tokens, rate limits. \${env:VAR} is allowed.`,
    ),
  postgres: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a PostgreSQL URL starts with postgres:// or postgresql://')
    .optional()
    .describe(
      `PostgreSQL URL (postgres://[user:password@]host:5432/db) for the durable audit and approvals history of the whole fleet. \${env:VAR} is allowed.`,
    ),
  redisPrefix: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Before every Redis key and channel toolmesh uses (sessions, approvals, tokens, rate limits, the fleet), so two fleets share one Redis; default: $TOOLMESH_REDIS_PREFIX, else toolmesh:.',
    ),
  auditCommit: z
    .enum(AUDIT_COMMITS)
    .optional()
    .describe(
      'When a call may answer, with the audit in PostgreSQL: "buffered" (default) once PostgreSQL committed its record to its WAL buffers (synchronous_commit off: safe against any replica or Redis dying, lost only if PostgreSQL itself crashes within about 3 × wal_writer_delay), "flushed" once the WAL is on disk (synchronous_commit on: a disk flush per commit, shared by calls that end together). See docs/deployment.md.',
    ),
});

const toolFactsSchema = z.strictObject({
  actions: z.array(z.enum(ACTION_CLASSES)).min(1).optional(),
  requiresApproval: z.boolean().optional(),
  workspaceScoped: z.boolean().optional(),
});

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
      "all: list every tool plus toolmesh's own; discovery: list only toolmesh's own tools (search_tool_bm25, list_my_tools, call_tool, the todo and workspace tools).",
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
    .describe(
      `Default per-call timeout, in milliseconds (5 minutes). Progress extends it: when the client asked for progress, each progress notification restarts the timeout, up to ${PROGRESS_STRETCH} times the timeout in all.`,
    ),
  resultMaxBytes: z
    .number()
    .int()
    .min(1024)
    .default(256_000)
    .describe(
      'Largest tool result passed to a client, in bytes of its JSON form; bigger ones are cut to fit and marked truncated.',
    ),
  modes: z
    .record(
      z
        .string()
        .regex(
          /^[a-z][a-z0-9-]{0,31}$/,
          'a mode name is lowercase letters, digits and -, starting with a letter',
        )
        .refine(
          (name) => !RESERVED_MODE_NAMES.includes(name),
          'all and discovery are endpoint names, not modes',
        ),
      modeSchema,
    )
    .default({})
    .describe('Modes by name; one named chat, plan, review or orchestrate replaces that built-in mode.'),
  alwaysAllowed: ruleSetSchema
    .optional()
    .describe(
      'Tools allowed in every mode (default: the discovery, todo and memory tools and the code-graph read tools).',
    ),
  defaultMode: z.string().default('chat').describe('The mode of a session that does not choose one.'),
  toolPolicy: z
    .record(z.string().min(1), toolFactsSchema)
    .default({})
    .describe("Tool-name glob → policy facts that replace what the tool's server declares."),
  workspaces: z
    .record(
      z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a workspace id takes letters, digits, _ and - (1-64)'),
      workspaceSchema,
    )
    .optional()
    .describe('Workspaces by id. Without it there is one, "default", rooted at the folder toolmesh runs in.'),
  shareProcesses: z
    .boolean()
    .default(false)
    .describe(
      "Run first-party servers in shared processes, one for each set of sandbox settings, instead of a process each; a server's shareProcess overrides it. `toolmesh serve --processes shared|separate` overrides both. See docs/aggregator.md for the isolation this gives up.",
    ),
  startupWaitMs: z
    .number()
    .int()
    .min(0)
    .default(5000)
    .describe(
      'How long `toolmesh serve` waits for the servers to be ready before it serves, in milliseconds; a server still starting then joins when ready, and clients get notifications/tools/list_changed. 0 serves at once.',
    ),
  approvalTimeoutMs: z
    .number()
    .int()
    .positive()
    .default(60_000)
    .describe(
      "How long a call waits for a person to approve it (no answer counts as a denial), and how long a 2026-07-28 call parked for its server's question waits for its client's answer (no answer cancels it).",
    ),
  auth: authSchema
    .default({ required: true, tokens: [], requestsPerMinute: 1200 })
    .describe(
      'Who may use the HTTP endpoint: bearer tokens with their workspaces, modes and approver right.',
    ),
  http: httpSchema.default({ maxBodyBytes: 16 * 1024 * 1024, allowedOrigins: [] }),
  fleet: z
    .object({
      url: z
        .string()
        .url()
        .optional()
        .describe(
          'How the other replicas reach this one (http://pod-ip:port); default: the address it listens on.',
        ),
      secret: z
        .string()
        .min(16)
        .optional()
        .describe(
          'Shared secret of the requests replicas forward to each other; default: one generated into Redis.',
        ),
      drainTimeoutMs: z
        .number()
        .int()
        .min(0)
        .default(30_000)
        .describe('On SIGTERM, how long calls in flight may take to finish before the replica exits.'),
    })
    .strict()
    .default({ drainTimeoutMs: 30_000 })
    .describe('Several `toolmesh serve` replicas on one Redis (state.redis): see docs/deployment.md.'),
  audit: auditSchema
    .default({ enabled: true, retentionDays: 30 })
    .describe('The log of every tools/call that reached policy.'),
  state: stateSchema
    .default({})
    .describe(
      'Where toolmesh keeps its state: without it a SQLite file in the data directory; with redis (and postgres) several replicas share it.',
    ),
  discovery: discoverySchema
    .default(DISCOVERY_DEFAULTS)
    .describe('How search_tool_bm25 learns from use, and its optional embeddings stage.'),
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
