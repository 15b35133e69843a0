// The legacy HTTP+SSE transport across two real replicas on one Redis: a client's event stream
// (GET /sse) stays on one replica, while a balancer with no stickiness spreads its posts
// (POST /messages) over both; the replica a post reaches passes it on to the stream's.
import { randomBytes } from 'node:crypto';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSse, ECHO_SERVER, FleetRig, type Replica } from './fleet-rig.js';

const CALLS = 40;

let rig: FleetRig;
let replicas: Replica[];

beforeAll(async () => {
  rig = new FleetRig({
    config: {
      mcpServers: { echo: { command: process.execPath, args: [ECHO_SERVER] } },
      auth: { requestsPerMinute: 10_000_000 },
    },
  });
  replicas = await rig.startMany(2);
}, 120_000);

afterAll(() => rig.dispose());

describe('legacy /sse sessions across two replicas', () => {
  it('answers every call when the posts of one stream reach either replica', async () => {
    await rig.withBalancedClients('round-robin', replicas, 1, connectSse, async ([client]) => {
      if (!client) throw new Error('no client connected');
      const forwardsBefore = await rig.total('toolmesh_fleet_forwards_total{outcome="ok"');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('echo__echo');
      for (let n = 0; n < CALLS; n++)
        expect(resultText(await client.call('echo__echo', { text: `sse ${n}` }))).toBe(`sse ${n}`);
      // Round-robin sends every other post to the replica without the stream: each was passed on.
      const forwarded = (await rig.total('toolmesh_fleet_forwards_total{outcome="ok"')) - forwardsBefore;
      expect(forwarded).toBeGreaterThanOrEqual(CALLS / 2);
    });
  });

  it('says to open /sse again for a stream no replica holds', async () => {
    const answer = await fetch(
      `${replicas[0]?.origin}/messages?sessionId=${randomBytes(8).toString('hex')}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${rig.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      },
    );
    expect(answer.status).toBe(404);
    expect(await answer.text()).toContain('open /sse first');
  });
});
