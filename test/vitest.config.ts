import { defineConfig } from 'vitest/config';
import { PROCESS_FLEET_SETTINGS } from '../vitest.base.js';

export default defineConfig({
  test: {
    include: ['conformance/**/*.test.ts', 'lint/**/*.test.ts', 'e2e/**/*.test.ts', 'fuzz/**/*.test.ts'],
    ...PROCESS_FLEET_SETTINGS,
  },
});
