import { stampBundle } from '@toolmesh/core/code-cache';
import { defineConfig } from 'tsup';
import { asciiOnly, zodEnglishOnly } from '../scripts/build/tsup-plugins.js';

const common = { format: ['esm'], sourcemap: true, target: 'node20' } as const;

export default defineConfig([
  // The library (`@toolmesh/aggregator`, `./testing`): its dependencies stay packages of their own,
  // shared with whoever imports it.
  {
    ...common,
    entry: ['src/aggregator.ts', 'src/testing.ts'],
    dts: { entry: ['src/aggregator.ts', 'src/testing.ts'] },
  },
  // The bin's program (dist/cli.cjs), with the pure-JS packages it loads at start (zod, the MCP
  // SDK, our shared kit) bundled in: Node then reads one file instead of about 170, a third of
  // the CPU `toolmesh serve` spent before answering its first tools/list. The aggregator's own
  // dependencies (better-sqlite3, express, ioredis, pg, ajv…) stay packages, loaded when needed.
  // One CommonJS file, because Node 20 can give V8's code cache to a script (vm.Script) and not
  // to an ES module: what `import()` loads lazily still runs only when imported (esbuild keeps
  // each such module behind its own initialiser), it is just not a file of its own.
  {
    ...common,
    entry: { cli: 'src/cli/bin.ts' },
    format: ['cjs'],
    noExternal: ['zod', /^@modelcontextprotocol\//, /^@toolmesh\/(core|bm25)(\/|$)/],
    // `import.meta.url` as the bundle's own file URL.
    shims: true,
    // `import()` of a package as `require`: a script compiled by vm has no module loader of its
    // own for `import()`, and the packages it loads that way (ajv) are CommonJS.
    esbuildOptions(options) {
      options.supported = { ...options.supported, 'dynamic-import': false };
    },
    esbuildPlugins: [zodEnglishOnly],
    plugins: [asciiOnly],
    // The bundle's own hash, which keys its code cache.
    onSuccess: async () => stampBundle('dist/cli.cjs'),
  },
  // The bin itself (dist/index.js): runs dist/cli.cjs with V8's code cache.
  {
    ...common,
    entry: ['src/index.ts'],
    noExternal: [/^@toolmesh\/core(\/|$)/],
  },
]);
