import { defineConfig } from 'vitest/config';
import { TEST_SETTINGS } from '../vitest.base.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    ...TEST_SETTINGS,
    globalSetup: ['test/isolated-data-dir.ts'],
  },
});
