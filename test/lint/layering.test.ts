import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The repository's own biome.json, run on a small tree laid out like the repository, shows that
// `pnpm lint` fails on an import cycle or a layer violation and passes on the allowed imports.
const repoRoot = join(import.meta.dirname, '..', '..');
const biome = join(repoRoot, 'node_modules', '.bin', 'biome');

const mcpImport =
  "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const a = McpServer;\n";
const modernMcpImport =
  "import { McpServer } from '@modelcontextprotocol/server';\nexport const a = McpServer;\n";
const testingImport =
  "import { connectInMemory } from '@toolmesh/core/testing';\nexport const a = connectInMemory;\n";

const aggregatorImport = "import type { Aggregator } from '../aggregator.js';\nexport type A = Aggregator;\n";

const files: Record<string, string> = {
  'aggregator/src/aggregator.ts': 'export class Aggregator {}\n',
  'aggregator/src/session-server/uses-aggregator.ts': aggregatorImport,
  'aggregator/src/tools/uses-aggregator.ts': aggregatorImport,
  'aggregator/src/cli/uses-aggregator.ts': aggregatorImport,
  'aggregator/src/cli/cycle-a.ts': "import { b } from './cycle-b.js';\nexport const a = () => b;\n",
  'aggregator/src/cli/cycle-b.ts': "import { a } from './cycle-a.js';\nexport const b = () => a;\n",
  'aggregator/src/cli/uses-testing.ts': testingImport,
  'aggregator/test/uses-testing.test.ts': testingImport,
  'shared/core/src/uses-testing.ts':
    "import { spawnRawStdio } from './testing.js';\nexport const a = spawnRawStdio;\n",
  'shared/core/src/testing.ts': mcpImport,
  'servers/probe/src/engine/uses-mcp.ts': mcpImport,
  'servers/probe/src/engine/uses-modern-mcp.ts': modernMcpImport,
  'servers/probe/src/engine/uses-testing.ts': testingImport,
  'servers/probe/src/engine.ts': mcpImport,
  'servers/probe/src/tools/uses-mcp.ts': mcpImport,
  'servers/probe/src/server.ts': mcpImport,
  'servers/probe/src/index.ts': mcpImport,
  'servers/probe/src/cli.ts': mcpImport,
  'servers/probe/test/uses-both.test.ts': `${mcpImport}${testingImport.replace('const a', 'const b')}`,
};

interface Diagnostic {
  category: string;
  location: { path: string };
}

let tree: string;
let findings: string[];

beforeAll(async () => {
  tree = await mkdtemp(join(tmpdir(), 'toolmesh-lint-'));
  await copyFile(join(repoRoot, 'biome.json'), join(tree, 'biome.json'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(tree, path)), { recursive: true });
    await writeFile(join(tree, path), text);
  }
  const run = await promisify(execFile)(biome, ['lint', '--reporter=json', '--max-diagnostics=none', '.'], {
    cwd: tree,
  }).catch((error: { stdout: string }) => error);
  const report = JSON.parse(run.stdout) as { diagnostics: Diagnostic[] };
  findings = report.diagnostics.map((d) => `${d.location.path} ${d.category}`).sort();
});

afterAll(async () => {
  await rm(tree, { recursive: true, force: true });
});

describe('biome.json enforces the layering', () => {
  it('reports an import cycle', () => {
    expect(findings).toContain('aggregator/src/cli/cycle-a.ts lint/suspicious/noImportCycles');
    expect(findings).toContain('aggregator/src/cli/cycle-b.ts lint/suspicious/noImportCycles');
  });

  it('refuses the MCP SDK (v1 or v2) in an engine and allows it in tools, server and bin', () => {
    expect(findings).toContain('servers/probe/src/engine/uses-mcp.ts lint/style/noRestrictedImports');
    expect(findings).toContain('servers/probe/src/engine/uses-modern-mcp.ts lint/style/noRestrictedImports');
    expect(findings).toContain('servers/probe/src/engine.ts lint/style/noRestrictedImports');
    for (const allowed of ['tools/uses-mcp.ts', 'server.ts', 'index.ts', 'cli.ts']) {
      expect(findings.filter((f) => f.startsWith(`servers/probe/src/${allowed} `))).toEqual([]);
    }
  });

  it('refuses @toolmesh/core/testing in production code and allows it in tests', () => {
    expect(findings).toContain('aggregator/src/cli/uses-testing.ts lint/style/noRestrictedImports');
    expect(findings).toContain('servers/probe/src/engine/uses-testing.ts lint/style/noRestrictedImports');
    expect(findings).toContain('shared/core/src/uses-testing.ts lint/style/noRestrictedImports');
    expect(findings.filter((f) => f.includes('/test/'))).toEqual([]);
    expect(findings.filter((f) => f.startsWith('shared/core/src/testing.ts '))).toEqual([]);
  });

  it('refuses aggregator.ts in the session server and the own tools, which see a SessionBackend', () => {
    expect(findings).toContain(
      'aggregator/src/session-server/uses-aggregator.ts lint/style/noRestrictedImports',
    );
    expect(findings).toContain('aggregator/src/tools/uses-aggregator.ts lint/style/noRestrictedImports');
    expect(findings.filter((f) => f.startsWith('aggregator/src/cli/uses-aggregator.ts '))).toEqual([]);
  });

  it('reports nothing else', () => {
    expect(findings).toHaveLength(10);
  });
});
