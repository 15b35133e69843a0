import { defineConfig } from 'vitest/config';
import { BUSY_MACHINE_BOUNDS } from '../vitest.base.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    ...BUSY_MACHINE_BOUNDS,
    globalSetup: ['test/isolated-data-dir.ts'],
  },
});
