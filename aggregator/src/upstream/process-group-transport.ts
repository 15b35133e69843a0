import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { type JSONRPCMessage, serializeMessage, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import { unwatchProcessGroup, watchProcessGroup } from './orphan-watchdog.js';
import { endProcessGroup } from './process-group.js';
import { ServerLines } from './server-lines.js';
import type { StdioLaunch } from './stdio-launch.js';

/** How long a server has to leave on its own after its stdin ends, then after SIGTERM. */
const GRACE_MS = 2000;

/**
 * The client side of a stdio server, like the SDK's StdioClientTransport, except that the server
 * leads a process group (and session) of its own, and ending it ends the group: every process a
 * `sh -c` or `npx` wrapper started, and whatever the server left behind when it exits on its own.
 * The orphan watchdog ends the group if toolmesh dies first. The group's own session keeps a
 * terminal's Ctrl-C away from it: toolmesh alone gets that, and closes each server in order.
 */
export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Readable before start, so that nothing the server writes early is missed. */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;
  /**
   * The server's process id while it runs. With `stderr`, it is also how the SDK's client knows a
   * stdio transport: a server that stays silent at its `server/discover` probe is then taken for
   * a 2025 one, and initialized on the same process.
   */
  get pid(): number | undefined {
    return this.child?.pid;
  }
  private readonly lines = new ServerLines();
  private ending: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly launch: Omit<StdioLaunch, 'sandboxWarning'>) {}

  start(): Promise<void> {
    if (this.child) throw new Error('ProcessGroupTransport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.launch.command, this.launch.args, {
        // As the SDK's transport does: the sandbox's launch relies on it (its ambient variables).
        env: { ...getDefaultEnvironment(), ...this.launch.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        ...(this.launch.cwd && { cwd: this.launch.cwd }),
      });
      this.child = child;
      const pgid = child.pid;
      if (pgid !== undefined) watchProcessGroup(pgid);
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('exit', () => void this.endGroup(pgid));
      child.on('close', () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.lines.append(chunk);
          this.deliver();
        } catch (error) {
          this.onerror?.(error as Error);
          void this.close();
        }
      });
      child.stderr?.pipe(this.stderr);
    });
  }

  private deliver(): void {
    for (;;) {
      try {
        const message = this.lines.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  /** Once, whoever asks first: the server's exit, or close() after the server's grace. */
  private endGroup(pgid: number | undefined): Promise<void> {
    if (pgid === undefined) return Promise.resolve();
    this.ending ??= endProcessGroup(pgid, GRACE_MS).then(() => unwatchProcessGroup(pgid));
    return this.ending;
  }

  /**
   * Ends the server: stdin closed, then its group after a grace. Once: a second caller (the SDK
   * closes a failed connection itself, and so does toolmesh) waits for the same end.
   */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) {
      child.stdin?.end();
      await exitedWithin(child, GRACE_MS);
      await this.endGroup(child.pid);
    }
    // A server that exited on its own may still have its group being ended.
    await this.ending;
    this.lines.clear();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      const stdin = this.child?.stdin;
      if (!stdin) throw new Error('Not connected');
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }
}

/** Waits for `child` to exit, at most `ms`, without keeping the process alive once it has. */
function exitedWithin(child: ChildProcess, ms: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      child.off('exit', done);
      resolve();
    }
    child.once('exit', done);
  });
}
