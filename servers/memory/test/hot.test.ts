import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type MemoryFixture, memoryFixture, REDIS_URL, redisPrefix } from './fixture.js';

type Item = {
  id: string;
  text: string;
  expiresAt: string;
  recalls: number;
  durable: boolean;
  identity: string;
};
type Remembered = { item: Item; repeated: boolean; evicted: string[]; backend: string };

const limits = { defaultTtlSeconds: 60, maxTtlSeconds: 3600, maxItemsPerIdentity: 3 };
const keys = redisPrefix();
afterAll(() => keys.cleanup());

describe.each([
  ['sqlite', {}],
  ['redis', { redisUrl: REDIS_URL, redisPrefix: keys.prefix }],
])('hot memory in %s', (backend, options) => {
  let m: MemoryFixture;
  beforeEach(async () => {
    m = await memoryFixture({
      hotLimits: limits,
      ...options,
      workspaces: [`hot-${Math.random().toString(36).slice(2)}`],
    });
  });
  afterEach(async () => {
    await m.close();
  });
  const notes = async (agent = 'tester') => (await m.asOk<{ hot: Item[] }>(agent, 'get_my_notes')).hot;

  it('keeps an item until its expiry, exactly: at the boundary it is gone', async () => {
    const out = await m.ok<Remembered>('remember', { text: 'look at the flaky login test', ttl_seconds: 10 });
    expect(out.backend).toBe(backend);
    expect(out.item.expiresAt).toBe('2026-03-02T09:00:10.000Z');
    m.clock.advance(9_999);
    expect((await notes()).map((i) => i.text)).toEqual(['look at the flaky login test']);
    m.clock.advance(1);
    expect(await notes()).toEqual([]);
    expect((await m.ok<{ hot: Item[] }>('search_memory', { query: 'flaky login' })).hot).toEqual([]);
  });

  it('uses the default TTL and refuses invalid ones instead of keeping forever', async () => {
    const out = await m.ok<Remembered>('remember', { text: 'default lifetime' });
    expect(out.item.expiresAt).toBe('2026-03-02T09:01:00.000Z');
    for (const ttl of [0, -5, 1.5, 3601, 1e300]) {
      expect(await m.fails('remember', { text: 'bad', ttl_seconds: ttl })).toMatch(
        /ttl_seconds must be a whole number from 1 to 3600/,
      );
    }
    expect(await m.fails('remember', { text: 'bad', ttl_seconds: 'forever' })).toMatch(/ttl_seconds/);
    expect((await notes()).map((i) => i.text)).toEqual(['default lifetime']);
  });

  it("evicts the oldest item past the per-identity cap, and only that identity's", async () => {
    await m.asOk('other', 'remember', { text: 'other agent item' });
    for (const text of ['one', 'two', 'three']) {
      await m.ok('remember', { text });
      m.clock.advance(1);
    }
    const fourth = await m.ok<Remembered>('remember', { text: 'four' });
    expect(fourth.evicted).toHaveLength(1);
    expect((await notes()).map((i) => i.text)).toEqual(['four', 'three', 'two']);
    expect((await notes('other')).map((i) => i.text)).toEqual(['other agent item']);
  });

  it('counts a recall when the same text is remembered again or found by search', async () => {
    await m.ok('remember', { text: 'The staging DB password rotates nightly' });
    const again = await m.ok<Remembered>('remember', { text: '  the staging db password rotates nightly. ' });
    expect(again).toMatchObject({ repeated: true, item: { recalls: 1 } });
    const found = await m.ok<{ hot: Item[] }>('search_memory', {
      query: 'staging password',
      mode: 'keyword',
    });
    expect(found.hot.map((i) => i.recalls)).toEqual([2]);
    expect((await notes())[0]?.recalls).toBe(2);
  });

  it('serves an identity that is not well-formed UTF-16 (a lone surrogate from _meta)', async () => {
    const odd = 'agent-\uD800';
    const out = await m.asOk<Remembered>(odd, 'remember', { text: 'odd agent note' });
    expect(out.repeated).toBe(false);
    expect((await notes(odd)).map((i) => i.text)).toEqual(['odd agent note']);
    expect(await notes()).toEqual([]);
  });

  it('tells a text reader to raise maxTokens when one hot item alone is over the budget', async () => {
    await m.ok('remember', { text: '😀'.repeat(4000) });
    const result = await m.call('get_my_notes', { maxTokens: 4000 });
    expect(result.structuredContent).toMatchObject({ blockedByBudget: true, hot: [] });
    const text = (result.content as { text: string }[]).map((part) => part.text).join('\n');
    expect(text).toMatch(/needs \d+ bytes: call again with maxTokens of at least \d+/);
  });

  it('keeps the durable mark of a repeat: remembering a held note as durable gets it promoted', async () => {
    await m.ok('remember', { text: 'Release branches are cut on Mondays' });
    const again = await m.ok<Remembered>('remember', {
      text: 'Release branches are cut on Mondays',
      durable: true,
    });
    expect(again).toMatchObject({ repeated: true, item: { durable: true, recalls: 1 } });
    expect((await notes())[0]?.durable).toBe(true);
    const pass = await m.ok<{ promoted: { item: Item }[] }>('consolidate_memory');
    expect(pass.promoted.map((p) => p.item.text)).toEqual(['Release branches are cut on Mondays']);
  });

  it('does not bring back a statement superseded after it was noted, but promotes one noted since', async () => {
    const { fact } = await m.ok<{ fact: { id: string } }>('propose_fact', {
      statement: 'Deploys run on Fridays',
      domain: 'ops',
    });
    await m.ok('remember', { text: 'Deploys run on Fridays', durable: true, domain: 'ops' });
    m.clock.advance(1_000);
    const { successor } = await m.ok<{ successor: { id: string } }>('supersede_fact', {
      fact: fact.id,
      statement: 'Deploys run on Tuesdays',
      reason: 'Friday deploys broke the weekend',
    });
    m.clock.advance(1_000);
    const pass = await m.ok<{
      promoted: unknown[];
      outdated: { item: Item; fact: { id: string; status: string; supersededBy: string } }[];
      outdatedCount: number;
      kept: number;
    }>('consolidate_memory');
    expect(pass.promoted).toEqual([]);
    expect(pass.outdatedCount).toBe(1);
    expect(pass.outdated[0]?.fact).toMatchObject({
      id: fact.id,
      status: 'superseded',
      supersededBy: successor.id,
    });
    expect(pass.kept).toBe(0);
    const current = await m.ok<{ hits: { body: string }[] }>('search_memory', {
      query: 'deploys',
      mode: 'keyword',
      include_hot: false,
    });
    expect(current.hits.map((hit) => hit.body)).toEqual(['Deploys run on Tuesdays']);

    // Said again after the change, it is news: it becomes a current fact beside the successor.
    await m.ok('remember', { text: 'Deploys run on Fridays', durable: true, domain: 'ops' });
    const again = await m.ok<{ promoted: { fact: { body: string; status: string } }[] }>(
      'consolidate_memory',
    );
    expect(again.promoted.map((p) => [p.fact.body, p.fact.status])).toEqual([
      ['Deploys run on Fridays', 'current'],
    ]);
  });

  it('promotes a statement said again after it was superseded, though first noted before', async () => {
    const { fact } = await m.ok<{ fact: { id: string } }>('propose_fact', {
      statement: 'Deploys run on Fridays',
      domain: 'ops',
    });
    await m.ok('remember', { text: 'Deploys run on Fridays', domain: 'ops' });
    m.clock.advance(1_000);
    await m.ok('supersede_fact', {
      fact: fact.id,
      statement: 'Deploys run on Tuesdays',
      reason: 'Friday deploys broke the weekend',
    });
    m.clock.advance(1_000);
    // Said again after the change (the held item counts the repeat): news, not an old note.
    const again = await m.ok<Remembered>('remember', {
      text: 'Deploys run on Fridays',
      durable: true,
      domain: 'ops',
    });
    expect(again.repeated).toBe(true);
    const pass = await m.ok<{ promoted: { fact: { body: string } }[]; outdatedCount: number }>(
      'consolidate_memory',
    );
    expect(pass.outdatedCount).toBe(0);
    expect(pass.promoted.map((p) => p.fact.body)).toEqual(['Deploys run on Fridays']);
  });

  it('consolidates: drops expired, promotes durable and recalled items once, never duplicating a fact', async () => {
    await m.ok('propose_fact', { statement: 'The API listens on port 8080', domain: 'api' });
    await m.ok('remember', { text: 'short lived', ttl_seconds: 5 });
    await m.ok('remember', { text: 'Builds take 12 minutes', durable: true, domain: 'ci' });
    await m.ok('remember', { text: 'the api listens on port 8080.', durable: true, domain: 'api' });
    await m.asOk('ada', 'remember', { text: 'Ada prefers squash merges' });
    await m.asOk('ada', 'remember', { text: 'Ada prefers squash merges' });
    await m.asOk('ada', 'remember', { text: 'Ada prefers squash merges' });
    await m.asOk('ada', 'remember', { text: 'just a passing thought' });
    m.clock.advance(5_000);
    const pass = await m.ok<{
      expired: number;
      promoted: { item: Item; fact: { id: string; author: string; domain: string; source: string } }[];
      alreadyKnown: { fact: { id: string } }[];
      kept: number;
    }>('consolidate_memory');
    expect(pass.expired).toBe(1);
    expect(pass.promoted.map((p) => [p.item.text, p.fact.domain, p.fact.author])).toEqual(
      expect.arrayContaining([
        ['Builds take 12 minutes', 'ci', 'tester'],
        ['Ada prefers squash merges', 'general', 'ada'],
      ]),
    );
    expect(pass.promoted).toHaveLength(2);
    expect(pass.promoted[0]?.fact.source).toMatch(/^hot:H-\d+$/);
    expect(pass.alreadyKnown.map((p) => p.fact.id)).toEqual(['F-1']);
    expect(pass.kept).toBe(1);
    const again = await m.ok<{ promoted: unknown[]; alreadyKnown: unknown[]; kept: number }>(
      'consolidate_memory',
    );
    expect(again).toMatchObject({ promoted: [], alreadyKnown: [], kept: 1 });
    // A new hot copy of a promoted statement merges into the fact instead of duplicating it.
    await m.ok('remember', { text: 'Builds take 12 minutes', durable: true, domain: 'ci' });
    const third = await m.ok<{ promoted: unknown[]; alreadyKnown: unknown[] }>('consolidate_memory');
    expect(third.promoted).toEqual([]);
    expect(third.alreadyKnown).toHaveLength(1);
    const facts = await m.ok<{ hits: unknown[] }>('search_memory', {
      query: 'builds minutes',
      mode: 'keyword',
    });
    expect(facts.hits).toHaveLength(1);
  });
});
