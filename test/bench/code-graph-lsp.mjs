// A small Language Server Protocol client over a child process's stdio: Content-Length framed
// JSON-RPC, requests with answers, and polite answers to the requests a server sends back.
import { spawn } from 'node:child_process';

export function startLanguageServer(command, args, { cwd, settings = {} } = {}) {
  const child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  let nextId = 1;
  const waiting = new Map();
  let buffer = Buffer.alloc(0);
  const send = (message) => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }), 'utf8');
    child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    child.stdin.write(body);
  };
  /** What a server asks of its client: settings by section, and registrations it only announces. */
  const answer = (message) => {
    if (message.method === 'workspace/configuration') {
      return message.params.items.map((item) => settings[item.section] ?? null);
    }
    return null;
  };
  child.stdout.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())?.[1]);
      if (buffer.length < headerEnd + 4 + length) return;
      const message = JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8'));
      buffer = buffer.subarray(headerEnd + 4 + length);
      if (message.method !== undefined && message.id !== undefined) {
        send({ id: message.id, result: answer(message) });
      } else if (message.id !== undefined && waiting.has(message.id)) {
        const { resolve, reject, method } = waiting.get(message.id);
        waiting.delete(message.id);
        if (message.error) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result);
      }
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  exited.then(() => {
    for (const { reject, method } of waiting.values())
      reject(new Error(`${method}: the language server exited\n${stderr}`));
    waiting.clear();
  });
  return {
    pid: child.pid,
    request(method, params) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject, method });
        send({ id, method, params });
      });
    },
    notify(method, params) {
      send({ method, params });
    },
    /** shutdown, exit, and a kill if the server has not gone within a few seconds. */
    async close() {
      if (child.exitCode !== null) return;
      await Promise.race([this.request('shutdown', null).catch(() => undefined), exited]);
      this.notify('exit', null);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
