import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { defineConfig } from 'tsup';
import { serverBuilds } from '../../scripts/build/tsup-plugins.js';
import { grammarFile, SHIPPED_GRAMMARS, shippedName } from './src/graph/language-spec.js';
import { LANGUAGES } from './src/graph/languages.js';

/**
 * Ships what the parser loads at run time in `grammars/`: each language's `.wasm`, compressed,
 * and the tags queries grammar packages ship, copied from those packages (development
 * dependencies), so an install does not pull them in.
 */
function shipGrammars(): void {
  rmSync(SHIPPED_GRAMMARS, { recursive: true, force: true });
  const files = LANGUAGES.flatMap((language) =>
    [language.wasmFile, ...(language.grammarQueries ?? [])].map(
      (file) => [language.grammarPackage, file] as const,
    ),
  );
  // Read from the grammar packages, not from a copy: grammarFile prefers grammars/, emptied above.
  for (const [grammarPackage, file] of files) {
    const target = path.join(SHIPPED_GRAMMARS, shippedName(grammarPackage, file));
    mkdirSync(path.dirname(target), { recursive: true });
    const bytes = readFileSync(grammarFile(grammarPackage, file));
    writeFileSync(target, target.endsWith('.gz') ? gzipSync(bytes, { level: 9 }) : bytes);
  }
}

// The precise-mode checker and the parse pool's worker are entries of their own: each runs in a
// worker process (see src/graph/worker-process.ts), off the main thread.
export default defineConfig(
  serverBuilds({
    entries: ['src/graph/precise/checker-worker.ts', 'src/graph/parse-worker.ts'],
    onSuccess: async () => shipGrammars(),
  }),
);
