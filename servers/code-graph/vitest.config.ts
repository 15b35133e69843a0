import { defineConfig } from 'vitest/config';
import { TEST_SETTINGS } from '../../vitest.base.js';

// Fixture projects carry their own *.test.ts files as indexing material, not as tests to run.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/fixtures/**', '**/node_modules/**'],
    ...TEST_SETTINGS,
  },
});
