import { stampBundle } from '@toolmesh/core/code-cache';
import type { Plugin as EsbuildPlugin } from 'esbuild';
import { defineConfig, type Options } from 'tsup';

const common = { format: ['esm'], sourcemap: true, target: 'node20' } as const;

/**
 * zod's namespace (`z`) re-exports every locale's messages, half of the zod bundled in the bin,
 * which Node reads and parses at every start. toolmesh sets no locale, so its messages stay
 * English (zod's default, still imported by zod itself): the bin gets `locales` with `en` only.
 */
const zodEnglishOnly: EsbuildPlugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      loader: 'js',
    }));
  },
};

/**
 * Source with one character beyond Latin-1 becomes a two-byte string in V8: the whole file is
 * decoded, held and parsed at twice the cost. esbuild's `charset: 'ascii'` escapes strings and
 * names; this escapes what it leaves (regular expression literals, kept comments) the same way,
 * one `\uXXXX` per UTF-16 unit, which means the same in a regular expression with or without `u`.
 */
const asciiOnly: NonNullable<Options['plugins']>[number] = {
  name: 'ascii-only',
  esbuildOptions(options) {
    options.charset = 'ascii';
  },
  renderChunk(code) {
    if (!/[^\0-\x7f]/.test(code)) return;
    return {
      code: code.replace(/[^\0-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`),
    };
  },
};

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
