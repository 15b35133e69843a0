// A server's bench file run directly (`node test/bench/<server>-bench.mjs`): measures in a
// temporary folder and prints the section, without touching docs/benchmarks.md.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Runs `benchmark` and prints `render` of its figures when `moduleUrl` is the script node was given. */
export function runAloneWhenMain(moduleUrl, name, benchmark, render) {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  const base = mkdtempSync(path.join(os.tmpdir(), `toolmesh-${name}-bench-`));
  const log = (line) => process.stderr.write(`${line}\n`);
  benchmark({ base, log })
    .then((figures) => process.stdout.write(render(figures)))
    .catch((error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exitCode = 1;
    })
    .finally(() => rmSync(base, { recursive: true, force: true }));
}
