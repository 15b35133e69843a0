import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  createLogger,
  dataDirectory,
  type FlagSpec,
  helpText,
  parseServerFlags,
  runTool,
  UsageError,
} from '@toolmesh/core';
import { CodeGraph } from './graph/code-graph.js';
import type { IndexProgress } from './graph/root-index.js';
import { CODE_GRAPH_SERVER_NAME } from './server.js';
import { codeCallees, codeCallers } from './tools/calls.js';
import { codeImpact } from './tools/impact.js';
import { indexStatus } from './tools/indexing.js';
import { repoMap } from './tools/map.js';
import { readSymbol } from './tools/source.js';
import { codeSymbol, searchCode } from './tools/symbols.js';
import { codeTrace } from './tools/trace.js';

/** Each CLI command is a tool, given its one positional argument under this name. */
const COMMANDS = {
  callers: { tool: codeCallers, argument: 'symbol' },
  callees: { tool: codeCallees, argument: 'symbol' },
  impact: { tool: codeImpact, argument: 'symbol' },
  trace: { tool: codeTrace, argument: 'from' },
  symbol: { tool: codeSymbol, argument: 'name' },
  search: { tool: searchCode, argument: 'query' },
  read: { tool: readSymbol, argument: 'symbol' },
  map: { tool: repoMap, argument: 'path' },
  status: { tool: indexStatus, argument: undefined },
} as const;
type Command = keyof typeof COMMANDS;

/** Shared by the server and the CLI: precise mode is on unless --no-precise is given. */
export const PRECISE_FLAG: Record<string, FlagSpec> = {
  'no-precise': {
    type: 'boolean',
    description: 'resolve TypeScript and JavaScript syntactically only, without the TypeScript checker',
  },
  'precise-workers': {
    type: 'string',
    value: '1|2',
    description:
      'TypeScript checker workers for the first full upgrade of a large root (default 1; 2 finish sooner at about twice the memory)',
  },
};

/** The CodeGraph options the precise flags give. */
export function preciseOptions(extra: Record<string, unknown>): { precise: boolean; preciseWorkers: number } {
  const workers = extra['precise-workers'] ?? '1';
  if (workers !== '1' && workers !== '2')
    throw new UsageError(`--precise-workers must be 1 or 2, not "${String(workers)}"`);
  return { precise: extra['no-precise'] !== true, preciseWorkers: Number(workers) };
}

const CLI_FLAGS: Record<string, FlagSpec> = {
  file: {
    type: 'string',
    value: 'FILE',
    description: 'the file a symbol is defined in, when its name is ambiguous',
  },
  level: {
    type: 'string',
    value: 'signature|body|dependencies',
    description: 'how much read shows (default body)',
  },
  'max-tokens': { type: 'string', value: 'N', description: 'output budget in bytes (default 4000)' },
  to: { type: 'string', value: 'SYMBOL', description: 'where trace should end' },
  depth: { type: 'string', value: 'N', description: 'how many edges impact follows (default 3, at most 6)' },
  json: { type: 'boolean', description: 'print the structured answer as JSON' },
  ...PRECISE_FLAG,
};

export function isCliCommand(word: string | undefined): word is Command {
  return word !== undefined && Object.hasOwn(COMMANDS, word);
}

function progressBar(progress: Pick<IndexProgress, 'done' | 'total'> & { phase: string }): string {
  const width = 30;
  const share = progress.total > 0 ? progress.done / progress.total : 0;
  const filled = Math.round(share * width);
  return `\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${progress.done}/${progress.total} files ${progress.phase}   `;
}

/**
 * `toolmesh-code-graph callers Money.multiplyByRate --root DIR`: brings the index up to date,
 * runs the same tool the server would, and prints its text (or JSON) to stdout. Returns the exit code.
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  const command = argv[0] as Command;
  const spec = COMMANDS[command];
  const positional = argv[1] !== undefined && !argv[1].startsWith('--') ? argv[1] : undefined;
  const rest = argv.slice(positional !== undefined ? 2 : 1);
  let parsed: ReturnType<typeof parseServerFlags>;
  let precise: ReturnType<typeof preciseOptions>;
  try {
    parsed = parseServerFlags(rest, CLI_FLAGS);
    precise = preciseOptions(parsed.extra);
    if (spec.argument && spec.argument !== 'path' && positional === undefined) {
      throw new UsageError(
        `${command} needs a ${spec.argument}: toolmesh-code-graph ${command} <${spec.argument}> --root DIR`,
      );
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${CODE_GRAPH_SERVER_NAME}: ${error.message}\n`);
    return 2;
  }
  if (parsed.help) {
    process.stderr.write(
      helpText(`${CODE_GRAPH_SERVER_NAME} ${command}`, `runs ${spec.tool.name} once`, CLI_FLAGS),
    );
    return 0;
  }
  const { flags, extra } = parsed;
  const log = createLogger({
    level: flags.logLevel === 'info' ? 'warning' : flags.logLevel,
    scope: CODE_GRAPH_SERVER_NAME,
  });
  let graph: CodeGraph;
  try {
    graph = new CodeGraph({
      roots: flags.roots.length > 0 ? flags.roots : [process.cwd()],
      dataDir: dataDirectory(),
      ...(flags.db && { databaseFile: flags.db }),
      log,
      watch: false,
      ...precise,
      // A terminal gets the progress bar below; a pipe or a log file a line every few seconds.
      progress: process.stderr.isTTY
        ? false
        : { say: (line) => process.stderr.write(`${CODE_GRAPH_SERVER_NAME}: ${line}\n`) },
    });
  } catch (error) {
    // A missing root, or a database that cannot be opened (not SQLite, say): nothing to answer from.
    process.stderr.write(`${CODE_GRAPH_SERVER_NAME}: ${(error as Error).message}\n`);
    return 1;
  }
  try {
    if (process.stderr.isTTY) {
      for (const root of graph.roots)
        root.index.onProgress((progress) => process.stderr.write(progressBar(progress)));
      for (const root of graph.roots)
        root.precise?.onProgress(({ done, total, state }) =>
          process.stderr.write(progressBar({ done, total, phase: `precise ${state}` })),
        );
    }
    await graph.preciseReady();
    if (process.stderr.isTTY) process.stderr.write('\n');
    const args: Record<string, unknown> = {};
    if (spec.argument && positional !== undefined) args[spec.argument] = positional;
    if (extra.file !== undefined) args.file = extra.file;
    if (extra.level !== undefined) args.level = extra.level;
    if (extra['max-tokens'] !== undefined) args.maxTokens = Number(extra['max-tokens']);
    if (extra.to !== undefined) args.to = extra.to;
    if (extra.depth !== undefined) args.depth = Number(extra.depth);
    const result: CallToolResult = await runTool(spec.tool, args, {
      engine: graph,
      signal: new AbortController().signal,
      progress: async () => undefined,
      log,
    });
    const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
    if (result.isError) process.stderr.write(`${text}\n`);
    else
      process.stdout.write(
        `${extra.json === true ? JSON.stringify(result.structuredContent, null, 2) : text}\n`,
      );
    // The answer above covers what was indexed; a failed index makes it untrustworthy, so says so by the exit code.
    const failedRoots = graph.roots.filter((entry) => !entry.index.progress.complete);
    for (const entry of failedRoots)
      process.stderr.write(
        `${CODE_GRAPH_SERVER_NAME}: indexing ${entry.root} failed: ${entry.index.progress.lastError ?? 'it did not finish'}. Answers are incomplete; run again with --log-level debug to see why.\n`,
      );
    const failures = graph.failuresNote();
    if (failures && command !== 'status') process.stderr.write(`${CODE_GRAPH_SERVER_NAME}: ${failures}\n`);
    return result.isError || failedRoots.length > 0 ? 1 : 0;
  } finally {
    await graph.close();
  }
}
