import { defineConfig } from 'vitest/config';
import { TEST_SETTINGS } from '../vitest.base.js';

export default defineConfig({
  test: {
    include: ['conformance/**/*.test.ts', 'lint/**/*.test.ts', 'e2e/**/*.test.ts', 'fuzz/**/*.test.ts'],
    ...TEST_SETTINGS,
  },
});
