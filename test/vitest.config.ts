import { defineConfig } from 'vitest/config';
import { BUSY_MACHINE_BOUNDS } from '../vitest.base.js';

export default defineConfig({
  test: {
    include: ['conformance/**/*.test.ts', 'lint/**/*.test.ts', 'e2e/**/*.test.ts', 'fuzz/**/*.test.ts'],
    ...BUSY_MACHINE_BOUNDS,
  },
});
