import { defineConfig } from 'vitest/config';
import { PROCESS_FLEET_SETTINGS } from '../vitest.base.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    ...PROCESS_FLEET_SETTINGS,
    // The 85 files share one worker's modules instead of loading the aggregator, the SDK and zod
    // afresh for each (about 2.8 s a file: the suite took 977 s isolated, 687 s so). The files
    // restore what they change of the process (environment variables) and close what they start.
    isolate: false,
    globalSetup: ['test/isolated-data-dir.ts'],
  },
});
