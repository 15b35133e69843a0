import { defineConfig } from 'tsup';
import { serverBuilds } from '../../scripts/build/tsup-plugins.js';

// The search worker is an entry of its own: it runs in a worker thread that a timeout can terminate.
export default defineConfig(serverBuilds({ entries: ['src/files/search-worker.ts'] }));
