import { defineConfig } from 'tsup';

export default defineConfig({
  // The search worker is its own entry: it runs in a worker thread that a timeout can terminate.
  entry: ['src/index.ts', 'src/program.ts', 'src/server.ts', 'src/files/search-worker.ts'],
  format: ['esm'],
  dts: { entry: 'src/server.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
