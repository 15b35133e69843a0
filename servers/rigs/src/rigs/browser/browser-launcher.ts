import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DIE_WITH_PARENT } from '../process-group.js';

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * Launches a browser that a driver (Playwright, puppeteer) spawns itself, through a launcher
 * script in the rig folder: the script records its pid (the process group the driver starts it
 * in) and runs the browser under the parent-death signal, so the browser dies with the server.
 */
export async function launchUnderLauncher<T>(
  folder: string,
  name: string,
  executable: string,
  launch: (launcher: string) => Promise<T>,
): Promise<{ launched: T; pid: number }> {
  const launcher = path.join(folder, `${name}.sh`);
  const pidFile = path.join(folder, `${name}.pid`);
  writeFileSync(
    launcher,
    `#!/bin/sh\necho $$ > ${shellQuote(pidFile)}\nexec ${DIE_WITH_PARENT.join(' ')} ${shellQuote(executable)} "$@"\n`,
    { mode: 0o700 },
  );
  const launched = await launch(launcher);
  return { launched, pid: Number(readFileSync(pidFile, 'utf8')) };
}
