import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ConnectedClient, resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveFixtureOverHttp, serveToolmesh } from './harness.js';

// Enough calls in flight over one downstream connection that anything added per request to a
// long-lived signal or emitter passes Node's listener limits (the old client reached 1,500).
const SESSIONS = 50;
const CALLS_PER_SESSION = 40;

let folder: string;
let downstream: ChildProcess;
let toolmesh: ReturnType<typeof serveToolmesh>;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-http-load-'));
  const config = path.join(folder, 'config.json');
  const served = await serveFixtureOverHttp('remote', '--http');
  downstream = served.child;
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { remote: { url: served.url } },
      // One token makes every call here; the default allowance is for one agent, not fifty.
      auth: { requestsPerMinute: 1_000_000 },
    }),
  );
  toolmesh = serveToolmesh(['--config', config, '--transport', 'http', '--port', '0'], folder);
  await toolmesh.url;
});
afterAll(() => {
  toolmesh?.child.kill('SIGKILL');
  downstream?.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

async function callsInARow(client: ConnectedClient, session: number): Promise<string[]> {
  const answers: string[] = [];
  for (let call = 0; call < CALLS_PER_SESSION; call++)
    answers.push(resultText(await client.call('remote__echo', { text: `${session}.${call}` })));
  return answers;
}

describe('many client sessions over HTTP into one Streamable HTTP downstream', () => {
  // Two thousand calls take under a minute on a quiet machine; the bound is for one whose cores are busy.
  it('answers every call and raises no listener warnings', { timeout: 300_000 }, async () => {
    const clients = await Promise.all(Array.from({ length: SESSIONS }, () => toolmesh.connect()));
    try {
      const answers = await Promise.all(clients.map((client, session) => callsInARow(client, session)));
      answers.forEach((ofSession, session) => {
        expect(ofSession).toEqual(
          Array.from({ length: CALLS_PER_SESSION }, (_, call) => `remote: ${session}.${call}`),
        );
      });
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
    }
    expect(toolmesh.stderr()).not.toContain('MaxListenersExceededWarning');
  });
});
