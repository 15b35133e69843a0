import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { processAlive } from '../process-group.js';

/** The first display number from `from` with neither a socket nor a lock file, so no running X server is taken. */
export function freeDisplay(from = 20, to = 999): number {
  for (let display = from; display <= to; display++) {
    if (!existsSync(`/tmp/.X11-unix/X${display}`) && !existsSync(`/tmp/.X${display}-lock`)) return display;
  }
  throw new Error(`no free X display number between :${from} and :${to}`);
}

/**
 * An Xauthority file with one MIT-MAGIC-COOKIE-1 entry for the display, for any host (FamilyWild),
 * so only clients given this file reach the display.
 */
export function writeXauthority(folder: string, display: number): string {
  const file = path.join(folder, 'Xauthority');
  const field = (data: Buffer) => {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(data.length);
    return Buffer.concat([length, data]);
  };
  const family = Buffer.alloc(2);
  family.writeUInt16BE(0xffff);
  writeFileSync(
    file,
    Buffer.concat([
      family,
      field(Buffer.alloc(0)),
      field(Buffer.from(String(display))),
      field(Buffer.from('MIT-MAGIC-COOKIE-1')),
      field(randomBytes(16)),
    ]),
    { mode: 0o600 },
  );
  return file;
}

/** openbox's config for a rig: one desktop, no margins, new windows focused and placed under the pointer-free smart policy. */
export function writeOpenboxConfig(folder: string): string {
  const file = path.join(folder, 'openbox-rc.xml');
  writeFileSync(
    file,
    `<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <focus><focusNew>yes</focusNew><followMouse>no</followMouse></focus>
  <placement><policy>Smart</policy><center>yes</center></placement>
  <desktops><number>1</number></desktops>
  <margins><top>0</top><bottom>0</bottom><left>0</left><right>0</right></margins>
  <keyboard></keyboard>
  <mouse></mouse>
</openbox_config>
`,
  );
  return file;
}

const DISPLAY_FILE = 'display';

/** Notes in the rig folder which display it holds, for a sweep after a crash. */
export function recordDisplay(folder: string, display: number): void {
  writeFileSync(path.join(folder, DISPLAY_FILE), String(display));
}

/**
 * Removes the lock and socket of the display a dead rig held: Xvfb removes them itself on TERM,
 * but not when the kernel KILLs it with its server.
 */
export function removeStaleDisplay(folder: string): void {
  let display: string;
  try {
    display = readFileSync(path.join(folder, DISPLAY_FILE), 'utf8').trim();
  } catch {
    return;
  }
  if (!/^\d+$/.test(display)) return;
  const lock = `/tmp/.X${display}-lock`;
  let owner = Number.NaN;
  try {
    owner = Number(readFileSync(lock, 'utf8').trim());
  } catch {
    return;
  }
  if (Number.isInteger(owner) && owner > 0 && processAlive(owner)) return;
  rmSync(lock, { force: true });
  rmSync(`/tmp/.X11-unix/X${display}`, { force: true });
}
