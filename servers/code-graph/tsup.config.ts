import { defineConfig } from 'tsup';

export default defineConfig({
  // The precise-mode checker and the parse pool's worker are entries of their own: each runs in
  // a worker thread, off the main thread.
  entry: [
    'src/index.ts',
    'src/server.ts',
    'src/graph/precise/checker-worker.ts',
    'src/graph/parse-worker.ts',
  ],
  format: ['esm'],
  dts: { entry: 'src/server.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
