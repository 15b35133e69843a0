import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runScript } from './run-script.js';

const SCRIPT = fileURLToPath(new URL('./run-conformance.mjs', import.meta.url));

it('toolmesh-fs passes every MCP conformance scenario except the listed fixture-only ones', async () => {
  const { code, output } = await runScript(SCRIPT, 170_000);
  expect(code, output).toBe(0);
}, 180_000);
