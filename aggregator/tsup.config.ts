import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/aggregator.ts'],
  format: ['esm'],
  dts: { entry: 'src/aggregator.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
