import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyze, contradiction } from '../src/store/contradiction.js';
import { type MemoryFixture, memoryFixture } from './fixture.js';

type Fact = { id: string; status: string; supersededBy: string | null; change: { reason: string } | null };
type Conflict = {
  id: string;
  method: string;
  explanation: string;
  suggestion: string;
  status: string;
  resolution: string | null;
  older: Fact;
  newer: Fact;
};
type Pass = {
  facts: number;
  pairs: number;
  found: Conflict[];
  foundCount: number;
  resolved: Conflict[];
  resolvedCount: number;
  open: number;
};

const why = (a: string, b: string) => contradiction(analyze(a), analyze(b));

describe('contradiction rules', () => {
  it('explain negation, opposite words and differing values on the same subject', () => {
    expect(why('Deploys happen on Fridays', 'Never deploy on Fridays')).toMatchObject({ method: 'negation' });
    expect(why('The API listens on 8080', 'The API listens on 9090')).toEqual({
      method: 'value',
      explanation: 'same subject (api, listen), different values: 8080 vs 9090',
    });
    expect(
      why('Feature flags are enabled in staging', 'Feature flags are disabled in staging'),
    ).toMatchObject({
      method: 'antonym',
      explanation: expect.stringMatching(/"enabl" vs "disabl"|"disabl" vs "enabl"/),
    });
    expect(why('The standup is on Monday', 'The standup is on Tuesday')).toMatchObject({ method: 'value' });
  });

  it('do not fire on agreement, double negation or different subjects', () => {
    expect(
      why('Feature flags are not disabled in staging', 'Feature flags are enabled in staging'),
    ).toBeUndefined();
    expect(why('The API listens on 8080', 'The API listens on port 8080')).toBeUndefined();
    expect(why('The API listens on 8080', 'The database listens on 5432')).toBeUndefined();
    expect(why("We don't deploy on Fridays", 'Never deploy on Fridays')).toBeUndefined();
  });
});

describe('harmonize_memory and list_memory_conflicts', () => {
  let m: MemoryFixture;
  beforeEach(async () => {
    m = await memoryFixture({ workspaces: ['w'] });
  });
  afterEach(async () => {
    await m.close();
  });

  it('records conflicts across identities with both facts and a suggestion, once', async () => {
    await m.asOk('ops', 'propose_fact', { statement: 'Deploys happen on Fridays', domain: 'deploy' });
    m.clock.advance(1000);
    await m.asOk('dev', 'propose_fact', { statement: 'Never deploy on Fridays', domain: 'deploy' });
    await m.asOk('dev', 'propose_fact', { statement: 'The API listens on 8080', domain: 'api' });
    m.clock.advance(1000);
    await m.asOk('ops', 'propose_fact', { statement: 'The API listens on 9090', domain: 'api' });
    await m.asOk('ops', 'propose_fact', { statement: 'Logs are kept for 30 days', domain: 'api' });
    const pass = await m.ok<Pass>('harmonize_memory');
    expect(pass.foundCount).toBe(2);
    expect(pass.found.map((c) => [c.method, c.older.id, c.newer.id, c.suggestion])).toEqual(
      expect.arrayContaining([
        ['negation', 'F-1', 'F-2', 'newer_supersedes_older'],
        ['value', 'F-3', 'F-4', 'newer_supersedes_older'],
      ]),
    );
    expect(pass.open).toBe(2);
    expect((await m.ok<Pass>('harmonize_memory')).foundCount).toBe(0);
    const listed = await m.ok<{ total: number; conflicts: Conflict[] }>('list_memory_conflicts', {
      domain: 'api',
    });
    expect(listed.total).toBe(1);
    expect(listed.conflicts[0]?.explanation).toBe(
      'same subject (api, listen), different values: 8080 vs 9090',
    );
  });

  it('resolves by supersession with a reason, and closes conflicts superseded by hand', async () => {
    await m.ok('propose_fact', { statement: 'The API listens on 8080', domain: 'api' });
    m.clock.advance(1000);
    await m.ok('propose_fact', { statement: 'The API listens on 9090', domain: 'api' });
    await m.ok('propose_fact', { statement: 'Backups run at 02:00', domain: 'ops' });
    m.clock.advance(1000);
    await m.ok('propose_fact', { statement: 'Backups run at 03:00', domain: 'ops' });
    await m.ok('harmonize_memory');
    await m.ok('supersede_fact', { fact: 'F-3', by: 'F-4', reason: 'checked the cron' });
    const pass = await m.ok<Pass>('harmonize_memory', { resolve: true });
    expect(pass.resolvedCount).toBe(2);
    expect(pass.open).toBe(0);
    const byHand = pass.resolved.find((c) => c.older.id === 'F-3');
    expect(byHand?.resolution).toBe('F-3 was superseded by F-4 (checked the cron)');
    const applied = pass.resolved.find((c) => c.older.id === 'F-1');
    expect(applied?.resolution).toBe('F-1 superseded by the newer F-2');
    expect(applied?.older).toMatchObject({ status: 'superseded', supersededBy: 'F-2' });
    expect(applied?.older.change?.reason).toMatch(
      /^harmonize_memory C-\d+: contradicted by the newer F-2 \(same subject/,
    );
    const all = await m.ok<{ hits: unknown[] }>('search_memory', {
      query: 'api listens',
      mode: 'keyword',
      include_superseded: true,
    });
    expect(all.hits).toHaveLength(2);
    expect((await m.ok<{ total: number }>('list_memory_conflicts', { status: 'resolved' })).total).toBe(2);
  });
});
