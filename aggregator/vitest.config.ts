import { defineConfig } from 'vitest/config';
import { PROCESS_FLEET_SETTINGS } from '../vitest.base.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    ...PROCESS_FLEET_SETTINGS,
    globalSetup: ['test/isolated-data-dir.ts'],
  },
});
