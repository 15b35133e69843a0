import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type MemoryFixture, memoryFixture } from './fixture.js';

type Memory = {
  id: string;
  status: string;
  body: string;
  supersededBy: string | null;
  supersedes: string[];
  validFrom: string;
  validUntil: string | null;
  author: string;
  change: { reason: string } | null;
};
type Hits = {
  hits: (Memory & { via: string[]; score: number })[];
  truncated: boolean;
  nextCursor?: string;
  warnings: string[];
};

let m: MemoryFixture;
beforeEach(async () => {
  m = await memoryFixture();
});
afterEach(async () => {
  await m.close();
});

const fact = async (statement: string, extra: Record<string, unknown> = {}) =>
  (await m.ok<{ fact: Memory }>('propose_fact', { workspace_id: 'alpha', statement, ...extra })).fact;
const search = (query: string, extra: Record<string, unknown> = {}) =>
  m.ok<Hits>('search_memory', { workspace_id: 'alpha', query, ...extra });

describe('facts', () => {
  it('stores a fact with its author and validity, and finds it by keyword', async () => {
    const stored = await fact('The API listens on port 8080', { domain: 'api' });
    expect(stored).toMatchObject({ id: 'F-1', author: 'tester', status: 'current', validUntil: null });
    expect(stored.validFrom).toBe('2026-03-02T09:00:00.000Z');
    const found = await search('port 8080', { mode: 'keyword' });
    expect(found.hits.map((h) => h.id)).toEqual(['F-1']);
    expect(found.hits[0]?.via).toEqual(['keyword']);
  });

  it('keeps a supersession chain: old entries linked, closed, out of default search, found with as_of', async () => {
    const first = await fact('Deploys happen on Tuesdays', { domain: 'deploy', valid_from: '2026-01-01' });
    m.clock.advance(1000);
    const second = await m.ok<{ old: Memory; successor: Memory }>('supersede_fact', {
      workspace_id: 'alpha',
      fact: first.id,
      statement: 'Deploys happen on Thursdays',
      reason: 'release train moved',
      valid_from: '2026-02-01',
    });
    expect(second.old).toMatchObject({
      status: 'superseded',
      supersededBy: second.successor.id,
      validUntil: '2026-02-01T00:00:00.000Z',
    });
    expect(second.old.change?.reason).toBe('release train moved');
    const third = await m.ok<{ old: Memory; successor: Memory }>('supersede_fact', {
      workspace_id: 'alpha',
      fact: second.successor.id,
      statement: 'Deploys happen on Fridays',
      reason: 'ops asked',
      valid_from: '2026-03-01',
    });
    expect(third.successor.supersedes).toEqual([second.successor.id]);

    const current = await search('deploys happen', { mode: 'keyword' });
    expect(current.hits.map((h) => h.body)).toEqual(['Deploys happen on Fridays']);
    const all = await search('deploys happen', { mode: 'keyword', include_superseded: true });
    expect(all.hits).toHaveLength(3);
    const inJanuary = await search('deploys happen', { mode: 'keyword', as_of: '2026-01-15' });
    expect(inJanuary.hits.map((h) => h.body)).toEqual(['Deploys happen on Tuesdays']);
    const inFebruary = await search('deploys happen', { mode: 'keyword', as_of: '2026-02-10T12:00:00Z' });
    expect(inFebruary.hits.map((h) => h.body)).toEqual(['Deploys happen on Thursdays']);
    const atBoundary = await search('deploys', { mode: 'keyword', as_of: '2026-03-01T00:00:00Z' });
    expect(atBoundary.hits.map((h) => h.body)).toEqual(['Deploys happen on Fridays']);
    const beforeAll = await search('deploys', { mode: 'keyword', as_of: '2025-12-31' });
    expect(beforeAll.hits).toEqual([]);

    expect(
      await m.fails('supersede_fact', { workspace_id: 'alpha', fact: first.id, statement: 'x', reason: 'y' }),
    ).toMatch(/already superseded; it was superseded by F-2/);
  });

  it('supersedes with an existing fact, and refuses itself, a missing one, or two successors', async () => {
    const a = await fact('The cache TTL is 60 seconds');
    const b = await fact('The cache TTL is 300 seconds');
    const out = await m.ok<{ old: Memory; successor: Memory }>('supersede_fact', {
      workspace_id: 'alpha',
      fact: a.id,
      by: b.id,
      reason: 'tuned',
    });
    expect(out.successor.supersedes).toEqual([a.id]);
    expect(
      await m.fails('supersede_fact', { workspace_id: 'alpha', fact: b.id, by: b.id, reason: 'x' }),
    ).toMatch(/itself/);
    expect(
      await m.fails('supersede_fact', { workspace_id: 'alpha', fact: 'F-99', statement: 's', reason: 'x' }),
    ).toMatch(/not found/);
    expect(await m.fails('supersede_fact', { workspace_id: 'alpha', fact: b.id, reason: 'x' })).toMatch(
      /exactly one successor/,
    );
    // An existing successor keeps its own valid_from: one given with `by` is refused, not ignored.
    const c = await fact('The cache TTL is 900 seconds');
    expect(
      await m.fails('supersede_fact', {
        workspace_id: 'alpha',
        fact: b.id,
        by: c.id,
        reason: 'x',
        valid_from: '2020-01-01',
      }),
    ).toMatch(/valid_from goes with `statement`/);
    expect(
      await m.fails('supersede_fact', { workspace_id: 'alpha', fact: 'P-1', statement: 's', reason: 'x' }),
    ).toMatch(/not a fact id/);
    expect(
      await m.fails('propose_fact', {
        workspace_id: 'alpha',
        statement: 'x',
        valid_from: '2026-03-01 10:00',
      }),
    ).toMatch(/ISO time with a zone/);
  });

  it('finds by meaning in semantic and hybrid modes', async () => {
    await fact('Production releases are only shipped on Fridays', { domain: 'deploy' });
    await fact('The billing service stores invoices in PostgreSQL', { domain: 'billing' });
    const semantic = await search('when do we deploy to prod', { mode: 'semantic' });
    expect(semantic.hits[0]?.body).toMatch(/Fridays/);
    expect(semantic.hits[0]?.via).toEqual(['semantic']);
    const hybrid = await search('invoices database');
    expect(hybrid.hits[0]?.body).toMatch(/PostgreSQL/);
    expect(hybrid.hits[0]?.via).toEqual(['keyword', 'semantic']);
  });

  it('bounds search answers by maxTokens and continues with the cursor', async () => {
    for (let i = 0; i < 12; i++) await fact(`Service number ${i} owns the queue worker ${'x'.repeat(120)}`);
    const first = await search('queue worker', { mode: 'keyword', maxTokens: 1000 });
    expect(first.truncated).toBe(true);
    const second = await search('queue worker', {
      mode: 'keyword',
      maxTokens: 1000,
      cursor: first.nextCursor,
    });
    expect(second.hits.length).toBeGreaterThan(0);
    expect(second.hits.map((h) => h.id)).not.toContain(first.hits[0]?.id);
    expect(
      await m.fails('search_memory', { workspace_id: 'alpha', query: 'other', cursor: first.nextCursor }),
    ).toMatch(/other arguments/);
  });
});

describe('policies and domains', () => {
  it('lets the domain creator and granted writers write policies, and refuses others', async () => {
    const policy = await m.asOk<{ policy: Memory }>('alice', 'propose_policy', {
      workspace_id: 'alpha',
      domain: 'deploy',
      statement: 'Two approvals before a production deploy',
    });
    expect(policy.policy).toMatchObject({ id: 'P-1', author: 'alice' });
    const refused = await m.as('bob', 'propose_policy', {
      workspace_id: 'alpha',
      domain: 'deploy',
      statement: 'One approval is enough',
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(
      /bob may not write policies in domain \\"deploy\\": its writers are alice/,
    );
    expect(
      (await m.as('bob', 'supersede_policy', { workspace_id: 'alpha', policy: 'P-1', reason: 'no' })).isError,
    ).toBe(true);
    // Anyone may still propose facts there.
    await m.asOk('bob', 'propose_fact', {
      workspace_id: 'alpha',
      domain: 'deploy',
      statement: 'Bob deployed on Monday',
    });
    m.engine.store.grantWriters('alpha', 'deploy', ['bob']);
    await m.asOk('bob', 'propose_policy', {
      workspace_id: 'alpha',
      domain: 'deploy',
      statement: 'Deploys are announced in #ops',
    });
    const domains = await m.asOk<{
      domains: {
        name: string;
        creator: string;
        writers: string[];
        facts: number;
        policies: number;
        canWritePolicies: boolean;
      }[];
    }>('carol', 'list_memory_domains', { workspace_id: 'alpha' });
    expect(domains.domains).toEqual([
      {
        name: 'deploy',
        creator: 'alice',
        writers: ['bob'],
        facts: 1,
        policies: 2,
        observations: 0,
        canWritePolicies: false,
      },
    ]);
  });

  it('retires a policy (kept, inactive) or replaces it, and lists active ones by default', async () => {
    await m.ok('propose_policy', {
      workspace_id: 'alpha',
      domain: 'security',
      statement: 'Rotate keys every 90 days',
    });
    await m.ok('propose_policy', {
      workspace_id: 'alpha',
      domain: 'security',
      statement: 'No secrets in logs',
    });
    await m.ok('propose_policy', { workspace_id: 'alpha', domain: 'style', statement: 'Use tabs' });
    m.clock.advance(60_000);
    const retired = await m.ok<{ old: Memory; successor: null }>('supersede_policy', {
      workspace_id: 'alpha',
      policy: 'P-3',
      reason: 'biome decides',
    });
    expect(retired.old).toMatchObject({ status: 'retired', validUntil: '2026-03-02T09:01:00.000Z' });
    expect(retired.successor).toBeNull();
    const replaced = await m.ok<{ old: Memory; successor: Memory }>('supersede_policy', {
      workspace_id: 'alpha',
      policy: 'P-1',
      reason: 'shorter',
      statement: 'Rotate keys every 30 days',
    });
    expect(replaced.old.supersededBy).toBe(replaced.successor.id);
    const active = await m.ok<{ total: number; policies: Memory[] }>('list_policies', {
      workspace_id: 'alpha',
    });
    expect(active.policies.map((p) => p.body)).toEqual(['Rotate keys every 30 days', 'No secrets in logs']);
    const security = await m.ok<{ total: number }>('list_policies', {
      workspace_id: 'alpha',
      domain: 'security',
    });
    expect(security.total).toBe(2);
    const everything = await m.ok<{ total: number }>('list_policies', {
      workspace_id: 'alpha',
      include_inactive: true,
    });
    expect(everything.total).toBe(4);
    expect(
      await m.fails('supersede_policy', { workspace_id: 'alpha', policy: 'P-3', reason: 'again' }),
    ).toMatch(/already retired/);
    const inactive = await search('tabs', { mode: 'keyword', include_inactive: true });
    expect(inactive.hits.map((h) => h.status)).toEqual(['retired']);
    expect((await search('tabs', { mode: 'keyword' })).hits).toEqual([]);
  });
});

describe('observations and notes', () => {
  it('records observations, searchable with kinds', async () => {
    const out = await m.ok<{ observation: Memory }>('record_observation', {
      workspace_id: 'alpha',
      observation: 'p99 latency spiked to 900 ms at 14:00',
      domain: 'perf',
    });
    expect(out.observation.id).toBe('O-1');
    expect((await search('latency spiked', { mode: 'keyword' })).hits).toEqual([]);
    expect((await search('latency spiked', { mode: 'keyword', kinds: ['observation'] })).hits).toHaveLength(
      1,
    );
  });

  it('keeps notes per identity and refuses a write based on a stale revision', async () => {
    const empty = await m.asOk<{ notes: string; revision: number }>('ann', 'get_my_notes', {
      workspace_id: 'alpha',
    });
    expect(empty).toMatchObject({ notes: '', revision: 0 });
    await m.asOk('ann', 'update_my_notes', {
      workspace_id: 'alpha',
      notes: '# plan\n- step one\n',
      base_revision: 0,
    });
    const read = await m.asOk<{ notes: string; revision: number }>('ann', 'get_my_notes', {
      workspace_id: 'alpha',
    });
    expect(read).toMatchObject({ notes: '# plan\n- step one\n', revision: 1 });
    await m.asOk('ann', 'update_my_notes', { workspace_id: 'alpha', notes: 'session A', base_revision: 1 });
    const stale = await m.as('ann', 'update_my_notes', {
      workspace_id: 'alpha',
      notes: 'session B',
      base_revision: 1,
    });
    expect(stale.isError).toBe(true);
    expect(JSON.stringify(stale.content)).toMatch(/revision 2, not 1/);
    expect((await m.asOk<{ notes: string }>('ann', 'get_my_notes', { workspace_id: 'alpha' })).notes).toBe(
      'session A',
    );
    expect((await m.asOk<{ notes: string }>('ben', 'get_my_notes', { workspace_id: 'alpha' })).notes).toBe(
      '',
    );
  });

  it('pages long notes within the budget', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i} ${'y'.repeat(40)}\n`).join('');
    await m.ok('update_my_notes', { workspace_id: 'alpha', notes: lines, base_revision: 0 });
    let text = '';
    let cursor: string | undefined;
    do {
      const page = await m.ok<{ notes: string; truncated: boolean; nextCursor?: string }>('get_my_notes', {
        workspace_id: 'alpha',
        maxTokens: 2000,
        ...(cursor && { cursor }),
      });
      expect(Buffer.byteLength(page.notes)).toBeLessThan(2000);
      text += page.notes;
      cursor = page.nextCursor;
    } while (cursor);
    expect(text).toBe(lines);
  });
});

describe('workspace isolation', () => {
  it('shows nothing of one workspace in another', async () => {
    await fact('Alpha secret: the vault is in eu-west', { domain: 'infra' });
    await m.ok('propose_policy', { workspace_id: 'alpha', domain: 'infra', statement: 'Alpha only policy' });
    await m.ok('update_my_notes', { workspace_id: 'alpha', notes: 'alpha notes', base_revision: 0 });
    await m.ok('remember', { workspace_id: 'alpha', text: 'alpha vault hot item' });
    const beta = { workspace_id: 'beta' };
    expect((await m.ok<Hits>('search_memory', { ...beta, query: 'alpha vault secret policy' })).hits).toEqual(
      [],
    );
    expect((await m.ok<{ hot: unknown[] }>('search_memory', { ...beta, query: 'alpha vault' })).hot).toEqual(
      [],
    );
    expect((await m.ok<{ total: number }>('list_policies', beta)).total).toBe(0);
    expect((await m.ok<{ domains: unknown[] }>('list_memory_domains', beta)).domains).toEqual([]);
    expect(await m.ok<{ notes: string; hot: unknown[] }>('get_my_notes', beta)).toMatchObject({
      notes: '',
      hot: [],
    });
    expect(await m.fails('supersede_fact', { ...beta, fact: 'F-1', statement: 'x', reason: 'y' })).toMatch(
      /not found in workspace "beta"/,
    );
    expect(await m.fails('supersede_policy', { ...beta, policy: 'P-2', reason: 'y' })).toMatch(/not found/);
    expect((await m.ok<{ promoted: unknown[]; kept: number }>('consolidate_memory', beta)).kept).toBe(0);
    await fact('Alpha API listens on 8080', { domain: 'api' });
    await fact('Alpha API listens on 9090', { domain: 'api' });
    expect(
      (await m.ok<{ foundCount: number }>('harmonize_memory', { workspace_id: 'alpha' })).foundCount,
    ).toBe(1);
    expect((await m.ok<{ facts: number; foundCount: number }>('harmonize_memory', beta)).facts).toBe(0);
    expect((await m.ok<{ total: number }>('list_memory_conflicts', beta)).total).toBe(0);
    expect(await m.fails('search_memory', { workspace_id: 'gamma', query: 'x' })).toMatch(
      /not served here: use one of "alpha", "beta"/,
    );
  });

  it("ranks by the workspace's own words only: another workspace's entries never move its scores", async () => {
    await fact('Deploys go out through the blue pipeline');
    await fact('The pipeline retries flaky steps twice');
    const scores = async () =>
      (await search('deploys pipeline', { mode: 'keyword' })).hits.map((hit) => [hit.body, hit.score]);
    const before = await scores();
    for (let n = 0; n < 30; n++) {
      await m.ok('propose_fact', { workspace_id: 'beta', statement: `Beta deploys batch ${n} on Mondays` });
    }
    expect(await scores()).toEqual(before);
  });
});
