#!/usr/bin/env node
// Writes docs/servers/<name>.md from each built server's tool definitions, and the aggregator's
// config JSON Schema from its zod schema, so neither can drift from the code. `--check` only
// compares and fails on a difference.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const top = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { renderToolReference } = await import(pathToFileURL(path.join(top, 'shared/core/dist/index.js')).href);
const check = process.argv.includes('--check');
let stale = 0;

async function built(relative) {
  const file = path.join(top, relative);
  if (!existsSync(file)) throw new Error(`${file} is missing: run pnpm build first`);
  return import(pathToFileURL(file).href);
}

function generate(relative, rendered) {
  const target = path.join(top, relative);
  const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (current === rendered) return;
  if (check) {
    process.stderr.write(`${relative} is out of date: run pnpm docs\n`);
    stale++;
  } else {
    writeFileSync(target, rendered);
    process.stderr.write(`wrote ${relative}\n`);
  }
}

for (const name of readdirSync(path.join(top, 'servers')).sort()) {
  const { toolReference } = await built(`servers/${name}/dist/server.js`);
  generate(`docs/servers/${name}.md`, renderToolReference(toolReference, toolReference.tools));
}
const { configJsonSchema } = await built('aggregator/dist/aggregator.js');
generate('aggregator/toolmesh.schema.json', `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
process.exitCode = stale > 0 ? 1 : 0;
