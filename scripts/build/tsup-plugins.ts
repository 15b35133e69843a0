// What every toolmesh bin is built with, imported by each package's tsup.config.ts by relative
// path (tsup bundles a config's relative imports, so this needs no build of its own; turbo.json
// names this folder among each package's build inputs).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Plugin as EsbuildPlugin } from 'esbuild';
import type { Options } from 'tsup';

/**
 * zod's namespace (`z`) re-exports every locale's messages, half of the zod bundled in the bin,
 * which Node reads and parses at every start. toolmesh sets no locale, so its messages stay
 * English (zod's default, still imported by zod itself): the bin gets `locales` with `en` only.
 */
export const zodEnglishOnly: EsbuildPlugin = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      loader: 'js',
    }));
  },
};

/**
 * The v2 SDK's Node shims load ajv (with ajv-formats, a third of the SDK bundled in a bin) when
 * the SDK loads, for the default JSON Schema validator of every server, though toolmesh's tools
 * are checked by their zod schemas and the validator runs only for a client's elicitation answer.
 * The bin's shims build that validator on its first use instead, from the SDK's own
 * `validators/ajv`, which then is evaluated; until then its code is not run, and ajv's objects
 * are not made.
 */
export const ajvWhenUsed: EsbuildPlugin = {
  name: 'ajv-when-used',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, (args) => ({
      path: args.path,
      namespace: 'ajv-when-used',
      pluginData: { resolveDir: args.resolveDir },
    }));
    build.onLoad({ filter: /.*/, namespace: 'ajv-when-used' }, (args) => ({
      resolveDir: (args.pluginData as { resolveDir: string }).resolveDir,
      loader: 'js',
      contents: `import process from 'node:process';
export { process };
let validator;
export class DefaultJsonSchemaValidator {
  getValidator(schema) {
    validator ??= new (require('@modelcontextprotocol/server/validators/ajv').AjvJsonSchemaValidator)();
    return validator.getValidator(schema);
  }
}`,
    }));
  },
};

/**
 * Source with one character beyond Latin-1 becomes a two-byte string in V8: the whole file is
 * decoded, held and parsed at twice the cost. esbuild's `charset: 'ascii'` escapes strings and
 * names; this escapes what it leaves (regular expression literals, kept comments) the same way,
 * one `\uXXXX` per UTF-16 unit, which means the same in a regular expression with or without `u`.
 */
export const asciiOnly: NonNullable<Options['plugins']>[number] = {
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

/** The pure-JS packages a bin loads at start, bundled into it. */
const BUNDLED = ['zod', /^@modelcontextprotocol\/(core|server)(\/|$)/, /^@toolmesh\/(core|bm25)(\/|$)/];

/**
 * What bundled core loads only for some uses stays a package of its own: its optional peers
 * (the v1 SDK and express for HTTP, better-sqlite3 for SQLite, the v2 client), found at run time
 * beside the bin as they are beside core.
 */
const corePeers = (): string[] =>
  Object.keys(
    (
      JSON.parse(readFileSync(new URL('../../shared/core/package.json', import.meta.url), 'utf8')) as {
        peerDependencies: Record<string, string>;
      }
    ).peerDependencies,
  );

/** What names the bin's chunks in `dist`, apart from the library's: `bin-<module>-<hash>.js`. */
const BIN_CHUNK = 'bin-';

/**
 * Chunks beside the library's rather than in a folder of their own: code that finds a file by
 * `new URL('./worker.js', import.meta.url)` means `dist`. The library build cleans `dist` but
 * them (`cleanAroundBin`), so the bin removes its previous build's chunks itself.
 */
const binChunksInDist: NonNullable<Options['plugins']>[number] = {
  name: 'bin-chunks-in-dist',
  esbuildOptions(options) {
    options.chunkNames = `${BIN_CHUNK}[name]-[hash]`;
  },
  buildStart() {
    const dist = this.options.outDir;
    let files: string[] = [];
    try {
      files = readdirSync(dist);
    } catch {
      return;
    }
    for (const file of files.filter((name) => name.startsWith(BIN_CHUNK))) rmSync(path.join(dist, file));
  },
};

/**
 * The options of a server bin (`src/index.ts` to `dist/index.js`), with the pure-JS packages it
 * loads at start bundled in: Node then resolves, reads and links a few files instead of every
 * module of those packages, and holds less for them (docs/benchmarks.md, memory at rest).
 * The package's own dependencies stay packages (tsup's default). The library build beside it
 * (`program` for a server host, where servers share one core; see serverBuilds) cleans `dist` around it.
 */
function bundledBin(): Options {
  return {
    entry: ['src/index.ts'],
    format: ['esm'],
    target: 'node20',
    noExternal: BUNDLED,
    external: corePeers(),
    // Without whitespace and comments (a third of the text Node reads and holds at start) and
    // without a source map (2.5 MB of each install, most of it the bundled packages' text):
    // names stay, so a stack still says which function failed.
    esbuildOptions(options) {
      options.minifyWhitespace = true;
      options.minifySyntax = true;
    },
    // CommonJS inside what is bundled (picomatch, cross-spawn) requires Node's modules: an ES
    // module has no `require` of its own.
    banner: {
      js: "import { createRequire as createBundleRequire } from 'node:module'; const require = createBundleRequire(import.meta.url);",
    },
    esbuildPlugins: [zodEnglishOnly, ajvWhenUsed],
    plugins: [binChunksInDist, asciiOnly],
  };
}

/** `clean` for the library build beside `bundledBin`: all of `dist` but the bin and its chunks. */
const cleanAroundBin = ['!index.js', `!${BIN_CHUNK}*`];

/**
 * A server package's builds: its library (`program` for a server host, `server`, and `entries`
 * of its own, such as a worker that runs apart; `declared` also get types), whose dependencies
 * stay packages, and its bin (see bundledBin).
 */
export function serverBuilds({
  entries = [],
  declared = [],
  onSuccess,
}: {
  entries?: string[];
  declared?: string[];
  onSuccess?: () => Promise<void>;
} = {}): Options[] {
  return [
    {
      entry: ['src/program.ts', 'src/server.ts', ...entries],
      format: ['esm'],
      dts: { entry: ['src/server.ts', ...declared] },
      sourcemap: true,
      clean: cleanAroundBin,
      target: 'node20',
      ...(onSuccess && { onSuccess }),
    },
    bundledBin(),
  ];
}
