import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODERN_REVISION, type RawStdioPeer, spawnRawStdio } from '../src/testing.js';

// A plain tools/call answered past the SDK over stdio must be answered exactly as the SDK
// answers it, in both eras: the same handler is served over real stdio by the SDK alone and
// past it (fixtures/tool-calls-stdio.mjs), and every message each writes for a request (the
// notifications of the call, then its answer) must be the same.

const FIXTURE = fileURLToPath(new URL('./fixtures/tool-calls-stdio.mjs', import.meta.url));

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Pair {
  sdk: RawStdioPeer;
  past: RawStdioPeer;
  next: number;
  /** The `_meta` of the era's requests: the 2026-07-28 envelope, or none for a 2025 session. */
  meta?: Record<string, unknown>;
}

const open = (meta?: Record<string, unknown>): Pair => ({
  sdk: spawnRawStdio(process.execPath, [FIXTURE]),
  past: spawnRawStdio(process.execPath, [FIXTURE, '--past']),
  next: 1,
  ...(meta && { meta }),
});

/** The ways calls reached the handler of `peer` since the last asking (`direct` past the SDK), and its aborts. */
async function waysOf(peer: RawStdioPeer, meta?: Record<string, unknown>): Promise<string[]> {
  const answer = await peer.request('tools/call', { name: 'ways', ...(meta && { _meta: meta }) });
  const { content } = answer.result as { content: [{ text: string }] };
  return JSON.parse(content[0].text);
}

/** The methods of the messages the SDK's stdio entry of `peer` read since the last asking (this one's among them). */
async function entryOf(peer: RawStdioPeer, meta?: Record<string, unknown>): Promise<string[]> {
  const answer = await peer.request('tools/call', { name: 'entry', ...(meta && { _meta: meta }) });
  const { content } = answer.result as { content: [{ text: string }] };
  return JSON.parse(content[0].text);
}

/** Writes `message` (given a fresh id when it is a request) to both, as one line each. */
async function send(pair: Pair, message: Record<string, unknown>) {
  const line = `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
  await Promise.all([pair.sdk.write(line), pair.past.write(line)]);
}

/**
 * A request to both: what each wrote for it must be the same. Returns the answer and the ways
 * the call reached the handler past the SDK.
 */
async function both(pair: Pair, method: string, params: Record<string, unknown>) {
  const id = pair.next++;
  const from = { sdk: pair.sdk.messages().length, past: pair.past.messages().length };
  await send(pair, { id, method, params });
  const [, answer] = await Promise.all([pair.sdk.answerTo(id), pair.past.answerTo(id)]);
  expect(pair.past.messages().slice(from.past)).toEqual(pair.sdk.messages().slice(from.sdk));
  await waysOf(pair.sdk, pair.meta);
  return { answer, ways: await waysOf(pair.past, pair.meta) };
}

const call = (
  name: string,
  meta: Record<string, unknown> = ENVELOPE,
  more: Record<string, unknown> = {},
) => ({
  name,
  arguments: { a: 1 },
  _meta: meta,
  ...more,
});

describe('plain 2026-07-28 tools/call requests over stdio', () => {
  let pair: Pair;
  beforeAll(async () => {
    pair = open(ENVELOPE);
    // The connection's opening requests are classified by the SDK, which pins the era: the
    // discover, and the first call after it (the `ways` call that follows it here).
    await both(pair, 'server/discover', { _meta: ENVELOPE });
  });
  afterAll(async () => {
    await Promise.all([pair.sdk.close(), pair.past.close()]);
  });

  it('get the result the SDK sends, stamped complete and with the server identity', async () => {
    for (const name of ['plain', 'structured', 'empty']) {
      const { answer, ways } = await both(pair, 'tools/call', call(name));
      expect(ways).toEqual(['direct']);
      expect(answer.result).toMatchObject({
        resultType: 'complete',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'probe' } },
      });
    }
  });

  it('get the error the SDK sends for what the handler throws', async () => {
    for (const name of ['unknown', 'missing', 'crash']) {
      const { answer, ways } = await both(pair, 'tools/call', call(name));
      expect(ways).toEqual(['direct']);
      expect(answer.error).toBeDefined();
    }
  });

  it('hand the SDK what it must check, without running the call again', async () => {
    for (const name of ['image', 'broken', 'url', 'ask']) {
      const { ways } = await both(pair, 'tools/call', call(name));
      expect(ways).toEqual(['direct']);
    }
    const asked = await both(
      pair,
      'tools/call',
      call('ask', { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }),
    );
    expect(asked.ways).toEqual(['direct']);
    expect(asked.answer.result).toMatchObject({ resultType: 'input_required', requestState: 'sealed' });
  });

  it('send the notifications of the call before its result, as the SDK does', async () => {
    for (const name of ['progress', 'progress-image']) {
      const { ways } = await both(pair, 'tools/call', call(name, { ...ENVELOPE, progressToken: 'p' }));
      expect(ways).toEqual(['direct']);
    }
  });

  it("are taken off the line before the SDK's stdio entry reads them, once it pinned the era", async () => {
    await entryOf(pair.past, ENVELOPE);
    await both(pair, 'tools/call', call('plain'));
    await both(pair, 'tools/call', call('crash'));
    // Not even the asking: it is a plain call too.
    expect(await entryOf(pair.past, ENVELOPE)).toEqual([]);
    // A call the SDK must read goes to the entry, as does what is no call.
    await both(
      pair,
      'tools/call',
      call('plain', { ...ENVELOPE, 'io.modelcontextprotocol/related-task': { taskId: 't' } }),
    );
    await send(pair, { method: 'notifications/cancelled', params: { requestId: 999, reason: 'none' } });
    expect(await entryOf(pair.past, ENVELOPE)).toEqual(['tools/call', 'notifications/cancelled']);
  });

  it('tell a late cancellation of a call that ended from a later call with its id, as the SDK does', async () => {
    const id = pair.next++;
    const answersTo = (peer: RawStdioPeer) => peer.messages().filter((message) => message.id === id).length;
    const plain = { jsonrpc: '2.0', id, method: 'tools/call', params: call('plain') };
    await send(pair, { id, method: 'tools/call', params: call('plain') });
    await Promise.all([pair.sdk.answerTo(id), pair.past.answerTo(id)]);
    // The cancellation comes too late for the call it names, on the line before a call with its id.
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } };
    const lines = `${JSON.stringify(cancel)}\n${JSON.stringify(plain)}\n`;
    await Promise.all([pair.sdk.write(lines), pair.past.write(lines)]);
    for (const peer of [pair.sdk, pair.past])
      while (answersTo(peer) < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answersTo(pair.past)).toBe(answersTo(pair.sdk));
    await Promise.all([waysOf(pair.sdk, pair.meta), waysOf(pair.past, pair.meta)]);
  });

  it('leave requests that are not plain to the SDK, answered alike', async () => {
    const refused = [
      call('plain', { ...ENVELOPE, 'io.modelcontextprotocol/related-task': { taskId: 't' } }),
      call('plain', { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': { elicitation: 5 } }),
      call('plain', { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' }),
      call('plain', ENVELOPE, { arguments: 5 }),
      call('plain', ENVELOPE, { requestState: 'x' }),
      { name: 'plain', arguments: {} },
    ];
    for (const params of refused) {
      const { ways } = await both(pair, 'tools/call', params);
      expect(ways).not.toContain('direct');
    }
  });

  it('hand their handler the controller of their signal, which nothing aborts once they are answered', async () => {
    const said = (answer: { result?: unknown }) =>
      JSON.parse((answer.result as { content: [{ text: string }] }).content[0].text);
    const keep = await pair.past.request('tools/call', call('keep'));
    expect(said(keep)).toEqual(['its signal']);
    // A cancellation too late for the call it names leaves its signal alone.
    await pair.past.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: keep.id } })}\n`,
    );
    expect(said(await pair.past.request('tools/call', call('kept')))).toEqual(['not aborted']);
    // A call the SDK serves has none to hand.
    const related = { ...ENVELOPE, 'io.modelcontextprotocol/related-task': { taskId: 't' } };
    expect(said(await pair.past.request('tools/call', call('keep', related)))).toEqual(['none']);
  });

  it('are aborted by the client cancelling them, and get no answer, as in the SDK', async () => {
    const id = pair.next++;
    const progressOf = (peer: RawStdioPeer) =>
      peer.messages().filter((message) => message.method === 'notifications/progress').length;
    const before = { sdk: progressOf(pair.sdk), past: progressOf(pair.past) };
    await send(pair, { id, method: 'tools/call', params: call('hang', { ...ENVELOPE, progressToken: 'p' }) });
    // The call runs (it told its client so) when it is cancelled.
    const notified = (peer: RawStdioPeer) => progressOf(peer) > before[peer === pair.sdk ? 'sdk' : 'past'];
    while (!(notified(pair.sdk) && notified(pair.past)))
      await new Promise((resolve) => setTimeout(resolve, 10));
    await send(pair, { method: 'notifications/cancelled', params: { requestId: id, reason: 'stop' } });
    for (const peer of [pair.sdk, pair.past]) {
      const seen: string[] = [];
      while (!seen.includes('aborted')) seen.push(...(await waysOf(peer, ENVELOPE)));
    }
    // The next call's answer is the next message each writes: the cancelled call got none.
    await both(pair, 'tools/call', call('plain'));
    for (const peer of [pair.sdk, pair.past])
      expect(peer.messages().filter((message) => message.id === id)).toEqual([]);
  });
});

describe('plain tools/call requests of a 2025 session over stdio', () => {
  it('get the answer the SDK sends, past it once the session is open', async () => {
    const pair = open(ENVELOPE);
    try {
      await both(pair, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      });
      await send(pair, { method: 'notifications/initialized' });
      for (const name of [
        'plain',
        'structured',
        'empty',
        'image',
        'broken',
        'unknown',
        'missing',
        'crash',
        'url',
      ]) {
        const { ways } = await both(pair, 'tools/call', { name, arguments: { a: 1 } });
        // The notification is read before the call: the session is open by then.
        expect(ways).toEqual(['direct']);
      }
      // Once the session is open, its plain calls are taken off the line before the SDK's stdio
      // entry reads them (the asking is one too).
      await entryOf(pair.past);
      await pair.past.request('tools/call', { name: 'plain', arguments: { a: 1 } });
      await pair.past.request('tools/call', { name: 'crash', arguments: { a: 1 } });
      expect(await entryOf(pair.past)).toEqual([]);
    } finally {
      await Promise.all([pair.sdk.close(), pair.past.close()]);
    }
  });
});
