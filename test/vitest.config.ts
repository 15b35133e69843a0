import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['conformance/**/*.test.ts', 'lint/**/*.test.ts', 'e2e/**/*.test.ts', 'fuzz/**/*.test.ts'],
    testTimeout: 20000,
  },
});
