// What the built bin makes Node read at every start (issue 21, start-up time): the modules it
// can reach from dist/index.js, by their static and dynamic imports.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOLMESH_BIN } from './harness.js';

/** Each module of the bin's own graph (relative imports), with its text, from the entry on. */
function binModules(entry: string): Map<string, string> {
  const modules = new Map<string, string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (modules.has(file)) continue;
    const text = readFileSync(file, 'latin1');
    modules.set(file, text);
    for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*"(\.\/[^"]+\.js)"/g)) {
      pending.push(path.join(path.dirname(file), specifier!));
    }
  }
  return modules;
}

describe('the built bin', () => {
  const modules = binModules(TOOLMESH_BIN);

  it('is found with its chunks', () => {
    // The serve command, the SDK's server and zod are among them, or the walk missed imports.
    expect(modules.size).toBeGreaterThan(20);
    expect([...modules.values()].some((text) => text.includes('zod/v4/classic'))).toBe(true);
  });

  it('is ASCII throughout, so V8 holds and parses each module as one-byte text', () => {
    const wide = [...modules]
      .filter(([, text]) => /[^\0-\x7f]/.test(text))
      .map(([file]) => path.basename(file));
    expect(wide).toEqual([]);
  });

  it("carries zod's English messages and no other locale", () => {
    const locales = [...modules.values()].flatMap((text) =>
      [...text.matchAll(/zod\/v4\/locales\/([\w-]+)\.js/g)].map((match) => match[1]),
    );
    expect(new Set(locales)).toEqual(new Set(['en', 'index']));
  });
});
