import { defineConfig } from 'tsup';
import { bundledBin, cleanAroundBin } from '../../scripts/build/tsup-plugins.js';

export default defineConfig([
  // The library (`program` for a server host, `server`): its dependencies stay packages.
  {
    entry: ['src/program.ts', 'src/server.ts'],
    format: ['esm'],
    dts: { entry: 'src/server.ts' },
    sourcemap: true,
    clean: cleanAroundBin,
    target: 'node20',
  },
  bundledBin(),
]);
