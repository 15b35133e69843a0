// Builds the dashboard (ui/) into dist/ui: one script, one style sheet and the page, all
// served by toolmesh itself, so it works with no internet and under a CSP without inline script.
import { copyFileSync, mkdirSync } from 'node:fs';
import { build } from 'esbuild';

const outdir = new URL('../dist/ui/', import.meta.url).pathname;
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: { app: new URL('../ui/main.tsx', import.meta.url).pathname },
  outdir,
  bundle: true,
  format: 'esm',
  target: ['chrome110', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(new URL('../ui/index.html', import.meta.url), `${outdir}index.html`);
