// What the built bin makes Node read at every start (issue 21, start-up time): dist/index.js,
// which runs the program's one bundle, dist/cli.cjs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOLMESH_BIN } from './harness.js';

const entry = readFileSync(TOOLMESH_BIN, 'latin1');
const bundle = readFileSync(path.join(path.dirname(TOOLMESH_BIN), 'cli.cjs'), 'latin1');

describe('the built bin', () => {
  it('is an entry of Node built-ins only, and the bundle with the program', () => {
    expect(
      [...entry.matchAll(/from\s*"([^"]+)"/g)]
        .map((match) => match[1])
        .filter((name) => !/^(node:)?[a-z_]+$/.test(name!)),
    ).toEqual([]);
    // The serve command, the SDK's server and zod are in the bundle.
    expect(bundle).toContain('src/cli/serve-command.ts');
    expect(bundle).toContain('zod/v4/classic');
    expect(bundle).toMatch(/\/\/# toolmesh-bundle-sha256=[0-9a-f]{64}\n$/);
  });

  it('is ASCII throughout, so V8 holds and parses the bundle as one-byte text', () => {
    expect(/[^\0-\x7f]/.test(entry)).toBe(false);
    expect(/[^\0-\x7f]/.test(bundle)).toBe(false);
  });

  it("carries zod's English messages and no other locale", () => {
    const locales = [...bundle.matchAll(/zod\/v4\/locales\/([\w-]+)\.js/g)].map((match) => match[1]);
    expect(new Set(locales)).toEqual(new Set(['en', 'index']));
  });
});
