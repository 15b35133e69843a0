import { defineConfig } from 'tsup';
import { bundledBin, cleanAroundBin } from '../../scripts/build/tsup-plugins.js';

export default defineConfig([
  // The library (`program` for a server host, `server`, `embeddings`): its dependencies stay packages.
  {
    entry: ['src/program.ts', 'src/server.ts', 'src/embeddings.ts'],
    format: ['esm'],
    dts: { entry: ['src/server.ts', 'src/embeddings.ts'] },
    sourcemap: true,
    clean: cleanAroundBin,
    target: 'node20',
  },
  bundledBin(),
]);
