import { execFile } from 'node:child_process';
import { existsSync, type FSWatcher, mkdirSync, readFileSync, rmSync, watch } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ToolError } from '@toolmesh/core';
import { MAX_IMAGE_BYTES } from '../browser/jpeg-screenshot.js';
import type { EgressProxy } from '../egress/egress-proxy.js';
import { endRigProcesses, RIG_MARK, spawnInGroup } from '../process-group.js';
import type { Machine } from '../rig-pool.js';
import {
  freeDisplay,
  recordDisplay,
  removeStaleDisplay,
  writeOpenboxConfig,
  writeXauthority,
} from './x-display.js';

export interface Size {
  width: number;
  height: number;
}

export interface DesktopOptions {
  folder: string;
  /** The display's real size (default 1280×800). */
  size?: Size;
  /** The largest screenshot a model is shown (default 1024×768); larger displays are scaled down into it. */
  target?: Size;
  /** Whether openbox manages the display (default true); a display only for a browser needs none. */
  windowManager?: boolean;
  /** Given to desktop programs as http_proxy and https_proxy (only programs that honour them use it); the machine closes it. */
  proxy?: EgressProxy;
}

export type Point = readonly [number, number];

/** What a desktop action gives back: rigs' notes, text from the desktop (clipboard) and an image. */
export interface DesktopAnswer {
  notes: string[];
  body: string;
  image?: Buffer;
}

const QUALITIES = [75, 55, 40, 25];

async function until(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const X_SOCKETS = '/tmp/.X11-unix';

/** Resolves when the X server of `display` has made its socket: told by a watch on the folder. */
function socketAppears(display: number, ms: number): Promise<void> {
  const socket = path.join(X_SOCKETS, `X${display}`);
  return new Promise((resolve, reject) => {
    let watcher: FSWatcher | undefined;
    const finish = (error?: Error) => {
      clearTimeout(timer);
      clearInterval(fallback);
      watcher?.close();
      if (error) reject(error);
      else resolve();
    };
    const check = () => existsSync(socket) && finish();
    const timer = setTimeout(
      () => finish(new Error(`Xvfb made no socket for :${display} within ${ms / 1000} s`)),
      ms,
    );
    // The folder is made by the first X server of the machine: until it exists there is nothing to watch.
    const fallback = setInterval(check, 100);
    try {
      watcher = watch(X_SOCKETS, check);
    } catch {
      // Not there yet: the interval looks.
    }
    check();
  });
}

/** A Linux desktop: Xvfb on a display rigs picked, openbox with rigs' own config, driven by xdotool. */
export class DesktopMachine implements Machine {
  readonly controller: string;
  readonly notes = [
    'a process group on a private X display (Xvfb, openbox), not a virtual machine',
    'desktop programs get the egress proxy as http_proxy and https_proxy, which only programs that honour it use',
  ];
  /** The display's real size; `resize` changes it. */
  displaySize: Size;
  /** Screen size in the model's coordinates: the display scaled down to fit the target. */
  screen: Size = { width: 0, height: 0 };
  private scale = 1;
  private readonly groups: number[] = [];

  private constructor(
    private readonly folder: string,
    readonly display: number,
    private readonly env: NodeJS.ProcessEnv,
    size: Size,
    private readonly target: Size,
    private readonly proxy?: EgressProxy,
  ) {
    this.displaySize = size;
    this.fit();
    this.controller = `xdotool, scrot and xclip on Xvfb :${display} with openbox`;
  }

  private fit(): void {
    const { width, height } = this.displaySize;
    this.scale = Math.min(1, this.target.width / width, this.target.height / height);
    this.screen = { width: Math.round(width * this.scale), height: Math.round(height * this.scale) };
  }

  static async start(options: DesktopOptions): Promise<DesktopMachine> {
    const size = options.size ?? { width: 1280, height: 800 };
    const target = options.target ?? { width: 1024, height: 768 };
    const { folder } = options;
    const home = path.join(folder, 'home');
    mkdirSync(home, { recursive: true });
    let lastError: unknown;
    // Another server may take the same free number between the check and Xvfb's lock: try the next.
    for (let attempt = 0, from = 20; attempt < 5; attempt++) {
      const display = freeDisplay(from);
      from = display + 1;
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_CACHE_HOME: path.join(home, '.cache'),
        DISPLAY: `:${display}`,
        XAUTHORITY: writeXauthority(folder, display),
        ...(process.env.LANG && { LANG: process.env.LANG }),
        ...(options.proxy && {
          http_proxy: options.proxy.urlWithCredentials,
          https_proxy: options.proxy.urlWithCredentials,
          HTTP_PROXY: options.proxy.urlWithCredentials,
          HTTPS_PROXY: options.proxy.urlWithCredentials,
        }),
      };
      const machine = new DesktopMachine(folder, display, env, size, target, options.proxy);
      try {
        await machine.boot(options.windowManager ?? true);
        return machine;
      } catch (error) {
        lastError = error;
        await machine.stopGroups();
      }
    }
    throw new ToolError(`the desktop did not start: ${(lastError as Error).message}`);
  }

  private async boot(windowManager: boolean): Promise<void> {
    const { width, height } = this.displaySize;
    recordDisplay(this.folder, this.display);
    const xvfb = this.spawn('Xvfb', [
      `:${this.display}`,
      '-screen',
      '0',
      `${width}x${height}x24`,
      '-auth',
      this.env.XAUTHORITY as string,
      '-nolisten',
      'tcp',
      '-nolisten',
      'local',
      '-noreset',
    ]);
    const exited = new Promise<never>((_, reject) =>
      xvfb.once('exit', () => reject(new Error(`Xvfb on :${this.display} exited`))),
    );
    exited.catch(() => undefined);
    // Clients that connect once the socket exists are served as soon as the server is up, so
    // openbox starts at the socket rather than after a round of xdpyinfo polls.
    await Promise.race([socketAppears(this.display, 10_000), exited]);
    if (!windowManager) {
      await Promise.race([this.run('xdpyinfo', []), exited]);
      return;
    }
    this.spawn('openbox', ['--config-file', writeOpenboxConfig(this.folder), '--sm-disable']);
    // Apps started before the window manager is up appear seconds late, so wait for it.
    await Promise.race([
      until(
        async () => /window id #/.test(await this.run('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'])),
        'openbox managing the display',
      ),
      exited,
    ]);
  }

  /**
   * Starts a program on the display, as a process group of the rig; with `output`, each line it
   * writes (stdout and stderr) goes there, else its output is thrown away.
   */
  spawn(
    command: string,
    args: readonly string[],
    options: { stdin?: 'pipe' | 'ignore'; output?: (line: string) => void } = {},
  ) {
    const { output } = options;
    const child = spawnInGroup(command, args, {
      rigFolder: this.folder,
      env: this.env,
      stdin: options.stdin ?? 'ignore',
      stdout: output ? 'pipe' : 'ignore',
    });
    for (const stream of [child.stdout, child.stderr]) {
      if (stream && output) createInterface({ input: stream }).on('line', output);
      else stream?.resume();
    }
    if (child.pid !== undefined) this.groups.push(child.pid);
    return child;
  }

  private async stopGroups(): Promise<void> {
    for (const group of this.groups) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
    this.groups.length = 0;
  }

  processGroups(): number[] {
    return [...this.groups];
  }

  /**
   * Xvfb cannot change its screen size once started, so the display restarts at the new size on
   * the same number: every program on it is closed, and the answer says so.
   */
  async resize(size: Size): Promise<DesktopAnswer> {
    await endRigProcesses(this.folder, this.groups);
    this.groups.length = 0;
    removeStaleDisplay(this.folder);
    this.displaySize = size;
    this.fit();
    try {
      await this.boot(true);
    } catch (error) {
      throw new ToolError(
        `the display did not restart at ${size.width}×${size.height}: ${(error as Error).message}; close this rig and start another.`,
      );
    }
    return {
      notes: [
        `the display is now ${size.width}×${size.height} (screenshots ${this.screen.width}×${this.screen.height}); it restarted, so the programs on it were closed`,
      ],
      body: '',
    };
  }

  /** The pool ends the process groups (Xvfb removes its lock and socket on TERM); only the proxy is ours to close. */
  async close(): Promise<void> {
    await this.proxy?.close();
  }

  /** Runs an X client on the display and returns its stdout; argv is passed as is, never through a shell. */
  private run(command: string, args: string[], input?: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = execFile(
        command,
        args,
        { env: { ...this.env, [RIG_MARK]: this.folder }, timeout: 15_000, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (error)
            reject(new Error(`${command} failed: ${(stderr || error.message).trim().split('\n')[0]}`));
          else resolve(stdout);
        },
      );
      if (input !== undefined) child.stdin?.end(input);
    });
  }

  /** A point given in screenshot coordinates, on the display. */
  private toDisplay([x, y]: Point): [number, number] {
    if (x < 0 || y < 0 || x >= this.screen.width || y >= this.screen.height) {
      throw new ToolError(
        `coordinate [${x}, ${y}] is off the screen, which is ${this.screen.width}×${this.screen.height} in screenshot coordinates.`,
      );
    }
    return [Math.round(x / this.scale), Math.round(y / this.scale)];
  }

  private async moveTo(point: Point | undefined): Promise<void> {
    if (!point) return;
    const [x, y] = this.toDisplay(point);
    await this.run('xdotool', ['mousemove', '--sync', String(x), String(y)]);
  }

  async key(keys: string): Promise<DesktopAnswer> {
    await this.run('xdotool', ['key', '--clearmodifiers', '--', ...keys.split(/\s+/).filter(Boolean)]);
    return { notes: [`pressed ${keys}`], body: '' };
  }

  async type(text: string): Promise<DesktopAnswer> {
    await this.run('xdotool', ['type', '--delay', '12', '--', text]);
    return { notes: [`typed ${text.length} character(s)`], body: '' };
  }

  async holdKey(keys: string, seconds: number): Promise<DesktopAnswer> {
    const names = keys.split(/\s+/).filter(Boolean);
    await this.run('xdotool', ['keydown', '--', ...names]);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    await this.run('xdotool', ['keyup', '--', ...names]);
    return { notes: [`held ${keys} for ${seconds} s`], body: '' };
  }

  async mouseMove(point: Point): Promise<DesktopAnswer> {
    await this.moveTo(point);
    return { notes: [`moved the pointer to [${point.join(', ')}]`], body: '' };
  }

  async click(
    button: 'left' | 'right' | 'middle',
    times: number,
    point?: Point,
    modifiers?: string,
  ): Promise<DesktopAnswer> {
    await this.moveTo(point);
    const code = { left: '1', middle: '2', right: '3' }[button];
    const mods = modifiers ? modifiers.split('+').filter(Boolean) : [];
    if (mods.length > 0) await this.run('xdotool', ['keydown', '--', ...mods]);
    try {
      await this.run('xdotool', ['click', '--repeat', String(times), '--delay', '80', code]);
    } finally {
      if (mods.length > 0) await this.run('xdotool', ['keyup', '--', ...mods]);
    }
    const what = times === 1 ? `${button} click` : `${['', '', 'double', 'triple'][times]} click`;
    return { notes: [`${what}${point ? ` at [${point.join(', ')}]` : ''}`], body: '' };
  }

  async mouseButton(direction: 'down' | 'up', point?: Point): Promise<DesktopAnswer> {
    await this.moveTo(point);
    await this.run('xdotool', [direction === 'down' ? 'mousedown' : 'mouseup', '1']);
    return { notes: [`left button ${direction}`], body: '' };
  }

  async drag(from: Point, to: Point): Promise<DesktopAnswer> {
    await this.moveTo(from);
    await this.run('xdotool', ['mousedown', '1']);
    await this.moveTo(to);
    await this.run('xdotool', ['mouseup', '1']);
    return { notes: [`dragged from [${from.join(', ')}] to [${to.join(', ')}]`], body: '' };
  }

  async scroll(
    direction: 'up' | 'down' | 'left' | 'right',
    amount: number,
    point?: Point,
  ): Promise<DesktopAnswer> {
    await this.moveTo(point);
    const button = { up: '4', down: '5', left: '6', right: '7' }[direction];
    await this.run('xdotool', ['click', '--repeat', String(amount), '--delay', '30', button]);
    return { notes: [`scrolled ${direction} by ${amount}`], body: '' };
  }

  async cursorPosition(): Promise<DesktopAnswer> {
    const shell = await this.run('xdotool', ['getmouselocation', '--shell']);
    const x = Number(/X=(\d+)/.exec(shell)?.[1]);
    const y = Number(/Y=(\d+)/.exec(shell)?.[1]);
    const at = [Math.round(x * this.scale), Math.round(y * this.scale)];
    return { notes: [`the pointer is at [${at.join(', ')}]`], body: '' };
  }

  /** Starts a program on the desktop (argv, no shell), in its own process group of the rig. */
  async launch(argv: readonly string[]): Promise<DesktopAnswer> {
    const [command, ...args] = argv;
    if (!command) throw new ToolError('`argv` needs the program to start.');
    const before = await this.windowCount();
    const child = this.spawn(command, args);
    const failed = new Promise<string>((resolve) => {
      child.once('exit', (code) => resolve(`${command} exited at once (code ${code})`));
    });
    const shown = until(
      async () => (await this.windowCount()) > before,
      `a window of ${command}`,
      10_000,
    ).then(
      () => '',
      () => `${command} showed no window within 10 s`,
    );
    const problem = await Promise.race([shown, failed]);
    return { notes: [problem || `started ${command}; its window is up`], body: '' };
  }

  private async windowCount(): Promise<number> {
    const out = await this.run('xdotool', ['search', '--onlyvisible', '--name', '.*']).catch(() => '');
    return out.split('\n').filter(Boolean).length;
  }

  async clipboard(text?: string): Promise<DesktopAnswer> {
    if (text !== undefined) {
      // xclip stays as the selection's owner, so it runs in the rig's groups and ends with the display.
      // It forks into the background once it owns the selection: its first process exiting says so.
      const child = this.spawn('xclip', ['-selection', 'clipboard', '-in'], { stdin: 'pipe' });
      await new Promise<void>((resolve, reject) => {
        child.once('error', reject);
        child.once('exit', (code) =>
          code === 0 ? resolve() : reject(new ToolError(`xclip could not take the clipboard (exit ${code})`)),
        );
        child.stdin?.end(text);
      });
      return { notes: [`wrote ${text.length} character(s) to the clipboard`], body: '' };
    }
    const read = await this.run('xclip', ['-selection', 'clipboard', '-out']).catch(() => '');
    return { notes: ['the clipboard'], body: read };
  }

  /** A JPEG of the screen (or a region of it, in screenshot coordinates) fitted to the target size. */
  async screenshot(region?: readonly [number, number, number, number]): Promise<DesktopAnswer> {
    const file = path.join(this.folder, 'tmp', 'screen.jpg');
    const thumb = path.join(this.folder, 'tmp', 'screen-thumb.jpg');
    let area: string[] = [];
    let fit = this.screen;
    if (region) {
      const [x0, y0] = this.toDisplay([region[0], region[1]]);
      const [x1, y1] = this.toDisplay([
        Math.max(region[0], region[2] - 1),
        Math.max(region[1], region[3] - 1),
      ]);
      const width = Math.max(1, x1 - x0 + 1);
      const height = Math.max(1, y1 - y0 + 1);
      area = ['--autoselect', `${x0},${y0},${width},${height}`];
      const zoom = Math.min(this.screen.width / width, this.screen.height / height);
      fit = { width: Math.round(width * zoom), height: Math.round(height * zoom) };
    }
    const scaled = region !== undefined || this.scale < 1;
    for (const quality of QUALITIES) {
      rmSync(thumb, { force: true });
      await this.run('scrot', [
        '--overwrite',
        '--quality',
        String(quality),
        ...area,
        ...(scaled ? ['--thumb', `${fit.width}x${fit.height}`] : []),
        file,
      ]);
      const image = readFileSync(scaled ? thumb : file);
      if (image.length <= MAX_IMAGE_BYTES) {
        return {
          notes: [
            `${region ? 'zoomed' : 'screenshot'} ${fit.width}×${fit.height}, ${Math.round(image.length / 1024)} KB JPEG`,
          ],
          body: '',
          image,
        };
      }
    }
    throw new ToolError(
      `the screenshot stays above ${MAX_IMAGE_BYTES / 1024} KB even at JPEG quality ${QUALITIES.at(-1)}`,
    );
  }
}
