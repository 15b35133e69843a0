import { defineConfig } from 'tsup';
import { serverBuilds } from '../../scripts/build/tsup-plugins.js';

export default defineConfig(
  serverBuilds({ entries: ['src/embeddings.ts'], declared: ['src/embeddings.ts'] }),
);
