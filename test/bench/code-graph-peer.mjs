// @colbymchenry/codegraph, the peer code-graph is measured against, run offline: its bundled
// runtime is started directly (not through the npm shim, which only finds and execs it), with
// telemetry and update checks off (DO_NOT_TRACK=1), no background daemon, and a temporary HOME
// so that nothing is written outside the bench's folder. It keeps its index in <project>/.codegraph.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnStdioClient } from '@toolmesh/core/testing';

const inTest = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '../package.json'));
const shimFolder = path.dirname(inTest.resolve('@colbymchenry/codegraph/package.json'));
const bundleName = `@colbymchenry/codegraph-${process.platform}-${process.arch}`;
const bundleFolder = path.dirname(
  createRequire(path.join(shimFolder, 'package.json')).resolve(`${bundleName}/package.json`),
);

export const CODEGRAPH = {
  name: '@colbymchenry/codegraph',
  version: JSON.parse(readFileSync(path.join(shimFolder, 'package.json'), 'utf8')).version,
  bin: path.join(bundleFolder, 'bin', 'codegraph'),
};

/** The environment every codegraph run gets: offline, in process, its state under `home`. */
export function codegraphEnv(home) {
  return {
    DO_NOT_TRACK: '1',
    CODEGRAPH_NO_DAEMON: '1',
    CODEGRAPH_NO_UPDATE_CHECK: '1',
    HOME: home,
    // Its MCP server lists only codegraph_explore by default; the others answer either way.
    CODEGRAPH_MCP_TOOLS: 'search,callers,impact',
  };
}

/** `codegraph index <root>`: a full re-index from scratch, as `codegraph init` builds it. */
export function codegraphIndexCommand(root) {
  return { command: CODEGRAPH.bin, args: ['index', '--quiet', root] };
}

/** codegraph's stdio MCP server on `root`, with its file watcher (its default). */
export async function startCodegraphServer({ root, home }) {
  const spawned = await spawnStdioClient(CODEGRAPH.bin, ['serve', '--mcp', '--path', root], {
    env: codegraphEnv(home),
    cwd: root,
  });
  return {
    ...spawned,
    /** A tool's text answer; a tool error is thrown. */
    async text(name, args) {
      const result = await spawned.call(name, args);
      const text = result.content.map((block) => block.text ?? '').join('\n');
      if (result.isError) throw new Error(`codegraph ${name} ${JSON.stringify(args)} failed: ${text}`);
      return text;
    },
  };
}
