import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/aggregator.ts', 'src/testing.ts'],
  format: ['esm'],
  dts: { entry: ['src/aggregator.ts', 'src/testing.ts'] },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
