import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ToolError } from '@toolmesh/core';
import { defaultTicketsFile } from './server.js';
import { SqliteTicketStore } from './store/sqlite-store.js';

export const CLI_COMMANDS = ['export', 'import'] as const;

export function isCliCommand(word: string | undefined): boolean {
  return (CLI_COMMANDS as readonly string[]).includes(word ?? '');
}

const USAGE = `Usage:
  toolmesh-tickets export --workspace ID [--db FILE]          JSON of the workspace to stdout
  toolmesh-tickets import [FILE] --workspace ID [--db FILE]   from FILE, or stdin without it
`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs export or import and returns the exit code; errors go to stderr as one line a person can act on. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  let values: { workspace?: string; db?: string; agent?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { workspace: { type: 'string' }, db: { type: 'string' }, agent: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`toolmesh-tickets ${command}: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const workspace = values.workspace ?? 'default';
  const limit = command === 'import' ? 1 : 0;
  if (positionals.length > limit) {
    process.stderr.write(
      `toolmesh-tickets ${command}: unexpected ${positionals.slice(limit).join(' ')}\n${USAGE}`,
    );
    return 2;
  }
  const store = new SqliteTicketStore(values.db ?? defaultTicketsFile());
  try {
    if (command === 'export') {
      process.stdout.write(`${JSON.stringify(store.exportWorkspace(workspace), null, 2)}\n`);
      return 0;
    }
    const file = positionals[0];
    const text = file === undefined || file === '-' ? await readStdin() : readFileSync(file, 'utf8');
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new ToolError(`the input is not JSON (${(error as Error).message}).`, 'invalid_import');
    }
    const { imported } = store.importWorkspace({ workspace, identity: values.agent ?? 'import' }, data);
    process.stderr.write(`imported ${imported} ticket(s) into workspace "${workspace}"\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`toolmesh-tickets ${command}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    store.shutdown();
  }
}
