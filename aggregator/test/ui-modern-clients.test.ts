import { Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { MODERN_ACTIVE_MS, RecentModernClients } from '../src/session-server/modern-clients.js';
import { ClientSession } from '../src/session-server/session.js';

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A 2026-07-28 request's session, as the session server makes one: its id is the principal's state id. */
function request(identity: string, stateId: string, mode = 'plan'): ClientSession {
  const session = new ClientSession(
    new Server({ name: 'test', version: '0' }),
    'all',
    mode,
    identity,
    'default',
    undefined,
    stateId,
  );
  session.transport = 'http';
  return session;
}

describe('the 2026-07-28 clients the dashboard lists', () => {
  it('keeps one entry per token and endpoint, counting its requests, most recent first', () => {
    const time = clock();
    const seen = new RecentModernClients(time.now);
    seen.saw(request('ci', 'principal:a'), { revision: '2026-07-28', client: 'agent 1.0' });
    time.advance(1000);
    seen.saw(request('ops', 'principal:b'), { revision: '2026-07-28' });
    time.advance(1000);
    seen.saw(request('ci', 'principal:a'), { revision: '2026-07-28', client: 'agent 1.0' });
    expect(seen.active()).toEqual([
      expect.objectContaining({ identity: 'ci', requests: 2, firstSeen: 1_000_000, lastActive: 1_002_000 }),
      expect.objectContaining({ identity: 'ops', requests: 1, lastActive: 1_001_000 }),
    ]);
    expect(seen.active()[0]).toMatchObject({ client: 'agent 1.0', mode: 'plan', workspace: 'default' });
  });

  it('shows the mode a client switched to, and forgets a client idle longer than the window', () => {
    const time = clock();
    const seen = new RecentModernClients(time.now);
    seen.saw(request('ci', 'principal:a'), { revision: '2026-07-28' });
    seen.switched('principal:a', 'chat');
    seen.switched('principal:unknown', 'chat');
    expect(seen.active().map((client) => client.mode)).toEqual(['chat']);
    time.advance(MODERN_ACTIVE_MS);
    expect(seen.active()).toHaveLength(1);
    time.advance(1);
    expect(seen.active()).toEqual([]);
  });

  it('holds at most a thousand, forgetting the least recently active first', () => {
    const time = clock();
    const seen = new RecentModernClients(time.now);
    for (let i = 0; i < 1001; i++) {
      seen.saw(request(`token-${i}`, `principal:${i}`), { revision: '2026-07-28' });
      time.advance(1);
    }
    const active = seen.active();
    expect(active).toHaveLength(1000);
    expect(active.at(-1)?.identity).toBe('token-1');
  });
});
