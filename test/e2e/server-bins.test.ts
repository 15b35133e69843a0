// What each first-party server's built bin makes Node read and hold at start (issue 26, memory at
// rest): built with the shared options of scripts/build/tsup-plugins.ts. The modules reachable
// from dist/index.js by their static and dynamic imports of the bin's own files.
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
  const text = [...modules.values()].join('\n');

  it('carries zod, the v2 SDK and core, not imports of their packages', () => {
    const packages = [
      ...text.matchAll(
        /(?:from|import)\s*\(?\s*"((?:@modelcontextprotocol\/(?:server|core)|@toolmesh\/core|zod)(?:\/[^"]*)?)"/g,
      ),
    ].map((match) => match[1]);
    expect(packages).toEqual([]);
    // zod's English messages, the SDK's stdio serving and core's usage errors are in the text.
    expect(text).toContain('Invalid input: expected');
    expect(text).toContain('StdioServerTransport');
  });

  it('is ASCII throughout, so V8 holds and parses each module as one-byte text', () => {
    const wide = [...modules]
      .filter(([, source]) => /[^\0-\x7f]/.test(source))
      .map(([file]) => path.basename(file));
    expect(wide).toEqual([]);
  });

  it("carries zod's English messages and no other locale", () => {
    // German and French, as zod words them.
    expect(text).not.toContain('ltige Eingabe: erwartet');
    expect(text).not.toMatch(/Entr(?:\\u00e9|\\xE9|\\u00E9)e invalide/i);
  });

  it("builds the SDK's ajv validator at its first use, not when the SDK loads", () => {
    // ajv is in the bin only behind the shims' lazy require: its provider is a CommonJS module
    // esbuild wraps to run when first required, never at the bin's start.
    expect(text).toMatch(/\?\?=new\(\w+\(\)\)\.AjvJsonSchemaValidator\b/);
  });
});
