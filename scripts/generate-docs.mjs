#!/usr/bin/env node
// Writes docs/servers/<name>.md from each built server's tool definitions, so the reference
// cannot drift from the code. `--check` only compares and fails on a difference.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const top = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { renderToolReference } = await import(pathToFileURL(path.join(top, 'shared/core/dist/index.js')).href);
const check = process.argv.includes('--check');
let stale = 0;

for (const name of readdirSync(path.join(top, 'servers')).sort()) {
  const built = path.join(top, 'servers', name, 'dist', 'server.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: run pnpm build first`);
  const { toolReference } = await import(pathToFileURL(built).href);
  const target = path.join(top, 'docs', 'servers', `${name}.md`);
  const rendered = renderToolReference(toolReference, toolReference.tools);
  const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (current === rendered) continue;
  if (check) {
    process.stderr.write(`${path.relative(top, target)} is out of date: run pnpm docs\n`);
    stale++;
  } else {
    writeFileSync(target, rendered);
    process.stderr.write(`wrote ${path.relative(top, target)}\n`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
