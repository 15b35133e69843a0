import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  type ClientCapabilities,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tokenHash } from '../src/auth/token-secret.js';
import { fixture, type Harness, type ServedToolmesh, serveToolmesh, startHarness, until } from './harness.js';

// Two people, each with a token of their own, use one toolmesh over HTTP.
const TOKENS = {
  alice: 'tm_alice-token-for-the-relay-test-000000000000000',
  bob: 'tm_bob-token-for-the-relay-test-00000000000000000',
};
type Person = keyof typeof TOKENS;

const ELICITATION: ClientCapabilities = { elicitation: { form: {} } };
const ROOTS: ClientCapabilities = { roots: { listChanged: true } };

let scratch: Harness;
let serving: ServedToolmesh;
let url: string;
const disconnects: (() => Promise<void>)[] = [];

/** Requests a client sent that opened its event stream (a GET); a client need not open one. */
let eventStreamsAsked = 0;
const withoutEventStream = async (input: string | URL, init?: RequestInit) => {
  if (init?.method !== 'GET') return fetch(input, init);
  eventStreamsAsked++;
  return new Response(null, { status: 405 });
};

/** A client of `person`, with its request handlers set before it connects. */
async function connectAs(
  person: Person,
  capabilities: ClientCapabilities,
  handle: (client: Client) => void = () => undefined,
  { eventStream = true } = {},
): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${TOKENS[person]}` } },
    ...(!eventStream && { fetch: withoutEventStream }),
  });
  const client = new Client({ name: person, version: '1' }, { capabilities });
  handle(client);
  await client.connect(transport);
  // Ending the session (not only the stream) is what tells toolmesh the client has gone.
  disconnects.push(async () => {
    await transport.terminateSession();
    await client.close();
  });
  return client;
}

async function call(client: Client, name: string): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: {} })) as CallToolResult;
}

/** What the fixture last got when it asked for roots outside any call. */
async function rootsSeen(client: Client): Promise<string> {
  const read = await client.readResource({ uri: 'fixture://roots-seen' });
  return (read.contents[0] as { text: string }).text;
}

beforeAll(async () => {
  scratch = await startHarness({});
  const dataDir = path.join(scratch.folder, 'data');
  mkdirSync(dataDir);
  const configFile = path.join(scratch.folder, 'toolmesh.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: { fixture: fixture('fixture') },
      auth: {
        tokens: Object.entries(TOKENS).map(([name, token]) => ({ name, sha256: tokenHash(token) })),
      },
    }),
  );
  serving = serveToolmesh(['--config', configFile, '--transport', 'http', '--port', '0'], scratch.folder, {
    TOOLMESH_DATA_DIR: dataDir,
  });
  url = await serving.url;
});
afterEach(async () => {
  await Promise.allSettled(disconnects.splice(0).map((disconnect) => disconnect()));
});
afterAll(async () => {
  serving?.child.kill('SIGTERM');
  await scratch.close();
});

describe("a downstream server's requests to its client", () => {
  it('reach the calling client when it supports them, and no other', async () => {
    const asked: Person[] = [];
    const answering = (person: Person) => (client: Client) =>
      client.setRequestHandler(ElicitRequestSchema, async () => {
        asked.push(person);
        return { action: 'accept', content: { colour: person === 'alice' ? 'green' : 'blue' } };
      });
    const alice = await connectAs('alice', ELICITATION, answering('alice'));
    const bob = await connectAs('bob', ELICITATION, answering('bob'));
    await bob.listTools();
    expect(resultText(await call(alice, 'fixture__ask_user'))).toBe('accept: green');
    expect(asked).toEqual(['alice']);
  });

  it('reach a client that never opens its event stream, on the response stream of its call', async () => {
    const alice = await connectAs(
      'alice',
      ELICITATION,
      (client) =>
        client.setRequestHandler(ElicitRequestSchema, async () => ({
          action: 'accept',
          content: { colour: 'green' },
        })),
      { eventStream: false },
    );
    expect(resultText(await call(alice, 'fixture__ask_user'))).toBe('accept: green');
    expect(eventStreamsAsked).toBeGreaterThan(0);
  });

  it("never go to another person's client when the caller lacks the capability", async () => {
    let bobAsked = 0;
    const alice = await connectAs('alice', {});
    const bob = await connectAs('bob', ELICITATION, (client) =>
      client.setRequestHandler(ElicitRequestSchema, async () => {
        bobAsked++;
        return { action: 'accept', content: { colour: 'blue' } };
      }),
    );
    await bob.listTools();
    const result = await call(alice, 'fixture__ask_user');
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(
      /-32601.*The client calling server fixture through toolmesh does not support elicitation/,
    );
    expect(bobAsked).toBe(0);
  });

  it('are refused while two identities call the server at once, since they do not say whose call they belong to', async () => {
    let asked = 0;
    const answering = (client: Client) =>
      client.setRequestHandler(ElicitRequestSchema, async () => {
        asked++;
        return { action: 'accept', content: { colour: 'blue' } };
      });
    const alice = await connectAs('alice', ELICITATION, answering);
    const bob = await connectAs('bob', ELICITATION, answering);
    const stop = new AbortController();
    let counting!: () => void;
    const started = new Promise<void>((resolve) => {
      counting = resolve;
    });
    const bobsCall = bob
      .callTool({ name: 'fixture__count_slowly', arguments: { n: 10_000 } }, undefined, {
        signal: stop.signal,
        onprogress: () => counting(),
      })
      .catch(() => undefined);
    await started;
    const result = await call(alice, 'fixture__ask_user');
    stop.abort();
    await bobsCall;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(
      /cannot tell whose call to server fixture .*(alice, bob|bob, alice) are calling it at once/,
    );
    expect(asked).toBe(0);
  });

  it('ask for roots outside a call only while every connected client is one identity', async () => {
    const asked: Person[] = [];
    const offering = (person: Person) => (client: Client) =>
      client.setRequestHandler(ListRootsRequestSchema, async () => {
        asked.push(person);
        return { roots: [{ uri: `file:///home/${person}` }] };
      });
    // Asked for as soon as the client can be reached, with no nudge: over HTTP only once its
    // event stream is open, else the request for them would be lost.
    const alice = await connectAs('alice', ROOTS, offering('alice'));
    await until(async () => (await rootsSeen(alice)) === 'roots: file:///home/alice');
    await connectAs('bob', ROOTS, offering('bob'));
    await until(async () => (await rootsSeen(alice)).startsWith('refused'));
    expect(await rootsSeen(alice)).toMatch(
      /-32601.*only while every connected client is the same identity; alice, bob are connected/,
    );
    expect(new Set(asked)).toEqual(new Set(['alice']));
  });
});
