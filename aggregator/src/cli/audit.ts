import { parseArgs } from 'node:util';
import type { AuditRecord } from '../audit/audit-record.js';
import type { AggregatorState } from '../state/state.js';
import { type Command, print } from './command.js';
import { openStateFromArgs } from './state-flags.js';
import { UsageError, wholeNumberOption } from './usage-error.js';

export interface AuditCommandOptions {
  state: AggregatorState;
  print: (line: string) => void;
  /** Where misuse is explained (stderr), apart from the records. */
  printError: (line: string) => void;
  now?: () => number;
}

const DEFAULT_LIMIT = 50;
const SHOWN_ARGUMENT_CHARACTERS = 100;
const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** `30m`, `2h`, `7d`: a whole number and a unit (s, m, h, d, w), in milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)([smhdw])$/.exec(text.trim());
  if (!match)
    throw new UsageError(
      `--since takes a duration such as 30m, 2h or 7d (a whole number, then s, m, h, d or w), not "${text}"`,
    );
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

function decisionOf(record: AuditRecord): string {
  return record.approval ? `${record.decision} (${record.approval})` : record.decision;
}

function durationOf(record: AuditRecord): string {
  return record.durationMs < 10
    ? `${record.durationMs.toFixed(1)} ms`
    : `${Math.round(record.durationMs)} ms`;
}

function argumentsOf(record: AuditRecord): string {
  const text = record.argumentsDigest.redacted;
  return text.length > SHOWN_ARGUMENT_CHARACTERS ? `${text.slice(0, SHOWN_ARGUMENT_CHARACTERS)}…` : text;
}

const COLUMNS: { title: string; cell: (record: AuditRecord) => string }[] = [
  { title: 'TIME', cell: (record) => new Date(record.time).toISOString().replace(/\.\d+Z$/, 'Z') },
  { title: 'IDENTITY', cell: (record) => record.identity },
  { title: 'MODE', cell: (record) => record.mode },
  { title: 'TOOL', cell: (record) => record.tool },
  { title: 'SERVER', cell: (record) => record.server },
  { title: 'DECISION', cell: decisionOf },
  { title: 'OUTCOME', cell: (record) => record.outcome },
  { title: 'DURATION', cell: durationOf },
  { title: 'ARGUMENTS', cell: argumentsOf },
];

/** Control characters shown as `?`: a server's error text must not drive the terminal (ANSI escapes). */
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}

/** One aligned line per record, and under a failed one what its client was told. */
function printTable(records: AuditRecord[], print: (line: string) => void): void {
  const rows = records.map((record) => COLUMNS.map(({ cell }) => printable(cell(record))));
  const widths = COLUMNS.map(({ title }, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] as string).length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] as number))).join('  ');
  print(line(COLUMNS.map(({ title }) => title)));
  records.forEach((record, i) => {
    print(line(rows[i] as string[]));
    if (record.error) print(`    ${printable(record.error.split('\n')[0] as string)}`);
  });
}

/**
 * `toolmesh audit`: the calls that reached policy, newest first, filtered by age, tool glob and
 * identity. It reads the state directly, so it sees the calls of every toolmesh sharing it.
 * Exit codes: 0 listed (even none), 2 misuse.
 */
export async function auditCommand(
  args: string[],
  { state, print, printError, now = Date.now }: AuditCommandOptions,
): Promise<number> {
  let query: Parameters<AggregatorState['auditRecords']>[0];
  let json: boolean;
  try {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        since: { type: 'string' },
        tool: { type: 'string' },
        identity: { type: 'string' },
        limit: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    if (positionals.length > 0)
      throw new UsageError(`audit takes flags only, not "${positionals.join(' ')}"`);
    json = values.json;
    query = {
      limit:
        values.limit === undefined ? DEFAULT_LIMIT : wholeNumberOption('--limit', values.limit, { min: 1 }),
      ...(values.since !== undefined && { since: now() - parseDuration(values.since) }),
      ...(values.tool !== undefined && { tool: values.tool }),
      ...(values.identity !== undefined && { identity: values.identity }),
    };
  } catch (error) {
    if (!(error instanceof UsageError) && !(error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      throw error;
    printError(
      `toolmesh audit: ${(error as Error).message}. Usage: toolmesh audit [--since DURATION] [--tool GLOB] [--identity NAME] [--limit N] [--json] [--config FILE] [--redis URL] [--postgres URL]`,
    );
    return 2;
  }
  const records = await state.auditRecords(query);
  if (json) print(JSON.stringify(records, null, 2));
  else if (records.length === 0) print('no audit record matches');
  else printTable(records, print);
  return 0;
}

export const audit: Command = {
  async run(args) {
    const { state, rest } = await openStateFromArgs(args);
    try {
      return await auditCommand(rest, {
        state,
        print,
        printError: (line) => process.stderr.write(`${line}\n`),
      });
    } finally {
      await state.close();
    }
  },
};
