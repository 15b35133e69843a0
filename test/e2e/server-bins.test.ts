// What each first-party server's built bin makes Node read and hold at start (issue 26, memory at
// rest): built with the shared plugins of scripts/build/tsup-plugins.ts, like toolmesh's own bin
// (aggregator/test/bin-bundle.test.ts). The modules reachable from dist/index.js by their static
// and dynamic imports of the bin's own files.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SERVERS } from '../bench/install-sizes.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Each module of a bin's own graph (relative imports), with its text, from the entry on. */
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

describe.each(SERVERS)('the built bin of %s', (server) => {
  const modules = binModules(path.join(REPO, 'servers', server, 'dist', 'index.js'));
  const texts = [...modules.values()];

  it('carries zod, the SDK and core, not imports of their packages', () => {
    expect(texts.some((text) => text.includes('zod/v4/classic'))).toBe(true);
    const packages = texts.flatMap((text) =>
      [
        ...text.matchAll(
          /(?:from|import)\s*\(?\s*"((?:@modelcontextprotocol\/(?:server|core)|@toolmesh\/core|zod)[^"]*)"/g,
        ),
      ].map((match) => match[1]),
    );
    expect(packages).toEqual([]);
  });

  it('is ASCII throughout, so V8 holds and parses each module as one-byte text', () => {
    const wide = [...modules]
      .filter(([, text]) => /[^\0-\x7f]/.test(text))
      .map(([file]) => path.basename(file));
    expect(wide).toEqual([]);
  });

  it("carries zod's English messages and no other locale", () => {
    const locales = texts.flatMap((text) =>
      [...text.matchAll(/zod\/v4\/locales\/([\w-]+)\.js/g)].map((match) => match[1]),
    );
    expect(new Set(locales)).toEqual(new Set(['en', 'index']));
  });

  it("builds the SDK's ajv validator at its first use, not when the SDK loads", () => {
    // The shims the SDK imports are the bin's own; ajv's provider is required inside a method.
    expect(texts.some((text) => text.includes('ajv-when-used:'))).toBe(true);
    expect(texts.some((text) => /\bshimsNode\.mjs\b/.test(text))).toBe(false);
  });
});
