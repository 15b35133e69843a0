import { defineConfig } from 'tsup';

const common = { format: ['esm'], sourcemap: true, target: 'node20' } as const;

export default defineConfig([
  // The library (`@toolmesh/aggregator`, `./testing`): its dependencies stay packages of their own,
  // shared with whoever imports it.
  {
    ...common,
    entry: ['src/aggregator.ts', 'src/testing.ts'],
    dts: { entry: ['src/aggregator.ts', 'src/testing.ts'] },
  },
  // The bin, with the pure-JS packages it loads at start (zod, the MCP SDK, our shared kit)
  // bundled in: Node then resolves, reads and links a few files instead of about 170, a third of
  // the CPU `toolmesh serve` spent before answering its first tools/list. The aggregator's own
  // dependencies (better-sqlite3, express, ioredis, pg, ajv…) stay packages, loaded when needed.
  {
    ...common,
    entry: ['src/index.ts'],
    noExternal: ['zod', /^@modelcontextprotocol\//, /^@toolmesh\/(core|bm25)(\/|$)/],
    // CommonJS inside what is bundled (cross-spawn, picomatch) requires Node's modules: an ES
    // module has no `require` of its own.
    banner: {
      js: "import { createRequire as createBundleRequire } from 'node:module'; const require = createBundleRequire(import.meta.url);",
    },
  },
]);
