import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST_METHODS } from '../src/host-protocol.js';
import { type RawMessage, type RawStdioPeer, spawnRawStdio } from '../src/raw-stdio.js';

const HOST = fileURLToPath(new URL('../dist/host.js', import.meta.url));
const ECHO_PROGRAM = fileURLToPath(new URL('./fixtures/echo-program.mjs', import.meta.url));
const PATIENCE_MS = 60_000;

let host: RawStdioPeer | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

function notice(method: string, params: Record<string, unknown>): string {
  return `${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`;
}

/** Resolves with the first host notification `method` about `server` that `accept` takes. */
async function noticeFrom(
  peer: RawStdioPeer,
  method: string,
  server: string,
  accept: (params: Record<string, unknown>) => boolean = () => true,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const found = peer
      .messages()
      .map((message) => message as RawMessage & { params?: Record<string, unknown> })
      .find(
        (message) => message.method === method && message.params?.server === server && accept(message.params),
      );
    if (found?.params) return found.params;
    if (peer.exit() || Date.now() > deadline)
      throw new Error(`no ${method} from ${server}; stderr:\n${peer.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Sends `server` one MCP request through the host and resolves with its answer. */
async function ask(peer: RawStdioPeer, server: string, id: number, method: string, params: object) {
  await peer.write(notice(HOST_METHODS.message, { server, message: { jsonrpc: '2.0', id, method, params } }));
  const answer = await noticeFrom(peer, HOST_METHODS.message, server, (params) => {
    const message = params.message as { id?: unknown };
    return message.id === id;
  });
  return answer.message as { result?: Record<string, unknown>; error?: unknown };
}

const INITIALIZE = {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'test', version: '1' },
};

describe('the server host', () => {
  it('runs several programs side by side, each a connection of its own with its own flags', async () => {
    host = spawnRawStdio(process.execPath, [HOST]);
    await host.write(
      notice(HOST_METHODS.start, { server: 'a', program: ECHO_PROGRAM, args: ['--prefix', 'A:'] }),
    );
    await host.write(
      notice(HOST_METHODS.start, { server: 'b', program: ECHO_PROGRAM, args: ['--prefix', 'B:'] }),
    );
    await noticeFrom(host, HOST_METHODS.started, 'a');
    await noticeFrom(host, HOST_METHODS.started, 'b');
    for (const server of ['a', 'b']) {
      expect((await ask(host, server, 1, 'initialize', INITIALIZE)).result).toMatchObject({
        serverInfo: { name: 'echo-program' },
      });
      await host.write(
        notice(HOST_METHODS.message, {
          server,
          message: { jsonrpc: '2.0', method: 'notifications/initialized' },
        }),
      );
    }
    // The same request id on both connections: each answer goes back to its own server's id.
    const fromA = await ask(host, 'a', 2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    const fromB = await ask(host, 'b', 2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } });
    expect(fromA.result?.structuredContent).toEqual({ text: 'A:hi' });
    expect(fromB.result?.structuredContent).toEqual({ text: 'B:hi' });

    await host.write(notice(HOST_METHODS.stop, { server: 'a' }));
    await noticeFrom(host, HOST_METHODS.ended, 'a');
    // b serves on after a has ended.
    const again = await ask(host, 'b', 3, 'tools/call', { name: 'echo', arguments: { text: 'still' } });
    expect(again.result?.structuredContent).toEqual({ text: 'B:still' });

    await host.close();
    expect(host.exit()).toEqual({ code: 0, signal: null });
    expect(host.strayLines()).toEqual([]);
  });

  it('says why a program could not start, and ends only that server', async () => {
    host = spawnRawStdio(process.execPath, [HOST]);
    await host.write(notice(HOST_METHODS.start, { server: 'bad', program: ECHO_PROGRAM, args: ['--fail'] }));
    await host.write(
      notice(HOST_METHODS.start, { server: 'missing', program: '/nowhere/program.mjs', args: [] }),
    );
    await host.write(
      notice(HOST_METHODS.start, { server: 'flag', program: ECHO_PROGRAM, args: ['--colour'] }),
    );
    await host.write(notice(HOST_METHODS.start, { server: 'good', program: ECHO_PROGRAM, args: [] }));
    for (const server of ['bad', 'missing', 'flag']) await noticeFrom(host, HOST_METHODS.ended, server);
    const said = (server: string) =>
      host
        ?.messages()
        .filter((message) => message.method === HOST_METHODS.output)
        .map((message) => message.params as { server: string; text: string })
        .filter((params) => params.server === server)
        .map((params) => params.text)
        .join('');
    expect(said('bad')).toContain('echo-program: --fail was given, so this server does not start');
    expect(said('missing')).toContain('server host: cannot load /nowhere/program.mjs');
    expect(said('flag')).toMatch(/echo-program: Unknown option '--colour'/);
    await noticeFrom(host, HOST_METHODS.started, 'good');
    expect((await ask(host, 'good', 1, 'initialize', INITIALIZE)).result).toBeDefined();
    expect(host.strayLines()).toEqual([]);
  });
});
