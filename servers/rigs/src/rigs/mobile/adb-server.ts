import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { ToolError } from '@toolmesh/core';
import { freePort } from '../free-port.js';
import { spawnInGroup } from '../process-group.js';

/**
 * One remote command line for `adb shell`, which joins its arguments with spaces into a single
 * string the device's shell parses again: so each element is single-quoted, and a quote inside
 * one closes, escapes and reopens. Metacharacters (; | $ ` & > * newlines) reach the program as
 * they were given.
 */
export function adbShellLine(argv: readonly string[]): string {
  return argv.map((arg) => `'${arg.replaceAll("'", `'\\''`)}'`).join(' ');
}

export interface AdbDevice {
  serial: string;
  /** device, offline, unauthorized, … as `adb devices` says. */
  state: string;
}

/**
 * An adb server of one rig, on a port of its own in the rig's process group: never the shared
 * default on 5037, which `adb devices` would otherwise start and leave running.
 */
export class AdbServer {
  private constructor(
    readonly adb: string,
    readonly port: number,
    readonly group: number,
  ) {}

  static async start(options: { adb: string; folder: string }): Promise<AdbServer> {
    const port = await freePort();
    const child = spawnInGroup(options.adb, ['-P', String(port), 'nodaemon', 'server'], {
      rigFolder: options.folder,
    });
    child.stderr?.resume();
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) =>
        reject(new ToolError(`adb server on port ${port} exited at once (code ${code})`)),
      ),
    );
    await Promise.race([listening(port, 10_000), exited]);
    return new AdbServer(options.adb, port, child.pid as number);
  }

  /** Runs adb against this server (and `serial`'s device when given); its stdout, or an error with its stderr. */
  run(args: readonly string[], serial?: string): Promise<Buffer> {
    const argv = ['-P', String(this.port), ...(serial ? ['-s', serial] : []), ...args];
    return new Promise((resolve, reject) => {
      execFile(
        this.adb,
        argv,
        { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
        (error, stdout, stderr) => {
          if (error) {
            const said = stderr.toString('utf8').trim() || error.message;
            reject(new ToolError(`adb ${args[0] ?? ''} failed: ${said.split('\n')[0]}`));
          } else {
            resolve(stdout);
          }
        },
      );
    });
  }

  async devices(): Promise<AdbDevice[]> {
    const listed = (await this.run(['devices'])).toString('utf8');
    return listed
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter(([serial, state]) => serial && state)
      .map(([serial, state]) => ({ serial: serial as string, state: state as string }));
  }
}

/** Resolves when something accepts connections on 127.0.0.1:`port`. */
async function listening(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline)
      throw new ToolError(`the adb server did not listen on port ${port} within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
