import { defineConfig } from 'tsup';

export default defineConfig({
  entry: [
    'src/index.ts',
    'src/testing.ts',
    'src/http.ts',
    'src/secrets.ts',
    'src/host.ts',
    'src/small-heap.ts',
    'src/code-cache.ts',
  ],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});
