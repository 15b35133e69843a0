// Starts the built toolmesh-code-graph over real stdio with the real SDK client, in either mode
// (syntactic only, or with the precise TypeScript upgrade when the build has it), and waits for
// its index the way a client would: through index_status.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { spawnStdioClient } from '@toolmesh/core/testing';

/** The bin of the workspace's @toolmesh/server-code-graph (dist/index.js beside dist/server.js). */
export const CODE_GRAPH_BIN = path.join(
  path.dirname(fileURLToPath(import.meta.resolve('@toolmesh/server-code-graph'))),
  'index.js',
);

let preciseFlag;

/** Whether the built server has the precise mode (its --help lists --no-precise). */
export function hasPreciseMode() {
  if (preciseFlag === undefined) {
    const help = spawnSync(process.execPath, [CODE_GRAPH_BIN, '--help'], { encoding: 'utf8' });
    preciseFlag = `${help.stdout}${help.stderr}`.includes('--no-precise');
  }
  return preciseFlag;
}

/** The two modes measured: tree-sitter alone, and tree-sitter upgraded by the TypeScript checker. */
export const MODES = {
  syntactic: {
    id: 'syntactic',
    title: 'tree-sitter',
    args: () => (hasPreciseMode() ? ['--no-precise'] : []),
  },
  precise: { id: 'precise', title: 'precise', args: () => [] },
};

/** The flags that start the server on one root with its database in `db`. */
export function codeGraphArgs({ root, db, mode, watch = 'off' }) {
  return [
    CODE_GRAPH_BIN,
    '--root',
    root,
    '--db',
    db,
    '--watch',
    watch,
    '--log-level',
    'warning',
    ...mode.args(),
  ];
}

export async function startCodeGraph(options) {
  const spawned = await spawnStdioClient(process.execPath, codeGraphArgs(options), {
    env: { TOOLMESH_DATA_DIR: path.dirname(options.db) },
  });
  const tool = async (name, args = {}) => {
    const result = await spawned.call(name, args);
    if (result.isError) {
      const text = result.content.map((block) => block.text ?? '').join('\n');
      const error = new Error(`${name} ${JSON.stringify(args)} failed: ${text}`);
      error.toolText = text;
      throw error;
    }
    return result.structuredContent;
  };
  return {
    ...spawned,
    tool,
    /** index_status until the first index (and any precise upgrade it reports) is done. */
    async ready({ pollMs = 20, timeoutMs = 600_000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const status = await tool('index_status');
        if (status.roots.some((root) => root.phase === 'failed'))
          throw new Error(`indexing failed: ${status.roots.map((root) => root.lastError).join('; ')}`);
        if (status.roots.every(isSettled)) return status;
        if (Date.now() > deadline) throw new Error(`the index was not ready in ${timeoutMs} ms`);
        await sleep(pollMs);
      }
    },
    /** Every caller group of a symbol, following nextCursor. */
    async callers(symbol, file) {
      const groups = [];
      let cursor;
      let answer;
      do {
        answer = await tool('code_callers', { symbol, file, maxTokens: 64000, ...(cursor && { cursor }) });
        groups.push(...answer.callers);
        cursor = answer.truncated ? answer.nextCursor : undefined;
      } while (cursor);
      return { ...answer, callers: groups };
    },
  };
}

/** Whether a root's precise upgrade (when index_status reports one) is still running or failed. */
function preciseState(root) {
  const precise = root.precise;
  return precise && typeof precise === 'object' ? (precise.state ?? precise.phase) : undefined;
}

/** A root whose answers are final: first index done, nothing pending, no upgrade still running. */
export function isSettled(root) {
  const precise = preciseState(root);
  if (precise === 'failed') throw new Error(`the precise upgrade failed: ${root.precise.lastError ?? ''}`);
  return (
    root.complete &&
    root.phase === 'ready' &&
    root.pendingChanges === 0 &&
    (precise === undefined || precise === 'ready' || precise === 'off')
  );
}
