import { spawn } from 'node:child_process';

/** A message as it came off the server's stdout. */
export type RawMessage = Record<string, unknown>;

export interface RawStdioPeer {
  pid: number | undefined;
  /** Writes bytes to the server's stdin exactly as given. */
  write(bytes: string | Uint8Array): Promise<void>;
  /** Sends a request with a fresh id and resolves with the answer to it; rejects after `ms`. */
  request(method: string, params?: Record<string, unknown>, ms?: number): Promise<RawMessage>;
  /** Resolves with the first message with this id, however it was sent; rejects after `ms`. */
  answerTo(id: string | number, ms?: number): Promise<RawMessage>;
  /** Every message the server wrote to stdout so far. */
  messages(): RawMessage[];
  /** stdout lines that are not one JSON-RPC 2.0 message each: a stdio server must write none. */
  strayLines(): string[];
  stderr(): string;
  /** How the process ended, or undefined while it runs. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Closes stdin and waits for the exit; SIGKILL after `ms`. */
  close(ms?: number): Promise<void>;
}

/** A JSON-RPC 2.0 message: a request or notification, or an answer carrying an id (null for an unreadable one). */
function isJsonRpcMessage(value: unknown): value is RawMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const message = value as RawMessage;
  if (message.jsonrpc !== '2.0') return false;
  if (typeof message.method === 'string') return true;
  const id = message.id;
  const idOk = id === null || typeof id === 'string' || typeof id === 'number';
  return idOk && 'result' in message !== 'error' in message;
}

/**
 * Spawns a stdio server and talks to it in raw bytes, with no SDK in between, so a test can send
 * what no client library would and see every byte the server writes back.
 */
export function spawnRawStdio(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): RawStdioPeer {
  const child = spawn(command, args, {
    ...(options.cwd && { cwd: options.cwd }),
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const received: RawMessage[] = [];
  const stray: string[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  let stderr = '';
  let ended: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let nextId = 0;

  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        stray.push(line);
        continue;
      }
      if (isJsonRpcMessage(value)) received.push(value);
      else stray.push(line);
    }
    for (const wake of waiters) wake();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-100_000);
  });
  // A server that died mid-write must not take the test down with EPIPE; exit() reports it.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      ended = { code, signal };
      for (const wake of waiters) wake();
      resolve();
    });
  });

  const answerTo = (id: string | number, ms = 10_000) =>
    new Promise<RawMessage>((resolve, reject) => {
      const check = () => {
        const found = received.find((message) => message.id === id && !('method' in message));
        if (found) return finish(() => resolve(found));
        if (ended)
          return finish(() =>
            reject(new Error(`the server exited (${ended?.signal ?? ended?.code}) before answering ${id}`)),
          );
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`no answer to ${id} within ${ms} ms`))),
        ms,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        settle();
      };
      waiters.add(check);
      check();
    });

  const write = (bytes: string | Uint8Array) =>
    new Promise<void>((resolve) => {
      if (ended || child.stdin.destroyed) return resolve();
      child.stdin.write(bytes, () => resolve());
    });

  return {
    pid: child.pid,
    write,
    answerTo,
    async request(method, params, ms) {
      const id = `raw-${nextId++}`;
      await write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params && { params }) })}\n`);
      return answerTo(id, ms);
    },
    messages: () => [...received],
    strayLines: () => [...stray, ...(partial ? [partial] : [])],
    stderr: () => stderr,
    exit: () => ended,
    async close(ms = 5000) {
      if (ended) return;
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      await exited;
      clearTimeout(timer);
    },
  };
}
