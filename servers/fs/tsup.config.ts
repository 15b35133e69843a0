import { defineConfig } from 'tsup';
import { bundledBin, cleanAroundBin } from '../../scripts/build/tsup-plugins.js';

export default defineConfig([
  // The library (`program` for a server host, `server`): its dependencies stay packages.
  // The search worker is its own entry: it runs in a worker thread that a timeout can terminate.
  {
    entry: ['src/program.ts', 'src/server.ts', 'src/files/search-worker.ts'],
    format: ['esm'],
    dts: { entry: 'src/server.ts' },
    sourcemap: true,
    clean: cleanAroundBin,
    target: 'node20',
  },
  bundledBin(),
]);
