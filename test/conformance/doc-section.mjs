// docs/conformance.md holds one section per conformance run; each run rewrites only its own, so
// the runs can be repeated separately. A section sits between two HTML comments naming it.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TOP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = path.join(TOP, 'docs/conformance.md');
const TITLE = '# MCP conformance\n';

/** Escapes a value for a Markdown table cell. */
export function cell(text) {
  return String(text ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');
}

/** Replaces the section called `name` in docs/conformance.md with `markdown`, or appends it. */
export function writeDocSection(name, markdown) {
  const begin = `<!-- section: ${name} -->`;
  const end = `<!-- end of section: ${name} -->`;
  const section = `${begin}\n${markdown.trim()}\n${end}`;
  const current = existsSync(DOCS) ? readFileSync(DOCS, 'utf8') : TITLE;
  const start = current.indexOf(begin);
  const stop = current.indexOf(end);
  const next =
    start !== -1 && stop > start
      ? `${current.slice(0, start)}${section}${current.slice(stop + end.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(DOCS, next);
  return path.relative(TOP, DOCS);
}
