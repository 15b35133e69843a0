import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@toolmesh/core';
import { afterAll, describe, expect, it } from 'vitest';
import { Aggregator } from '../src/aggregator.js';
import { parseConfig } from '../src/config/load.js';
import { LearnedAssociations } from '../src/discovery/learned-associations.js';
import { DiscoveryLearning, type LearningSettings } from '../src/discovery/learning.js';
import { SearchTrails } from '../src/discovery/search-trail.js';
import { ToolIndex } from '../src/discovery/tool-index.js';
import { SqliteAssociationStore } from '../src/state/association-store.js';
import { SqliteState } from '../src/state/sqlite-state.js';
import {
  type EvalQuery,
  evalQueries,
  evalRegistry,
  modelPhrased,
  recurringRequests,
} from './discovery-eval/eval-set.js';
import { meanMetrics, type QueryMetrics, queryMetrics } from './discovery-eval/retrieval-metrics.js';

const DAY = 24 * 60 * 60 * 1000;
const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-learning-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
const log = createLogger({ scope: 'test', level: 'error' });
const SETTINGS: LearningSettings = {
  learnFromUse: true,
  learnedHalfLifeDays: 30,
  maxLearnedAssociations: 20_000,
};

describe('LearnedAssociations', () => {
  it('pulls a tool by the share of the terms that led to it, fading with disuse', () => {
    const learned = new LearnedAssociations({ halfLifeMs: DAY, maxAssociations: 100 });
    learned.reinforce(['park', 'work'], 'git__git_stash', 0);
    const fresh = learned.pull(['park', 'change'], 0).get('git__git_stash')!;
    expect(fresh).toBeCloseTo((1 - Math.exp(-1)) / 2);
    expect(learned.pull(['park', 'change'], DAY).get('git__git_stash')).toBeCloseTo((1 - Math.exp(-0.5)) / 2);
    learned.reinforce(['park'], 'git__git_stash', 0);
    expect(learned.pull(['park', 'change'], 0).get('git__git_stash')).toBeGreaterThan(fresh);
    expect(learned.pull(['unrelated'], 0).size).toBe(0);
  });

  it('keeps at most its bound of links, dropping the weakest', () => {
    const learned = new LearnedAssociations({ halfLifeMs: DAY, maxAssociations: 2 });
    learned.reinforce(['old'], 'a', 0);
    learned.reinforce(['new'], 'b', 5 * DAY);
    learned.reinforce(['new'], 'c', 5 * DAY);
    expect(learned.evicted(5 * DAY)).toEqual([expect.objectContaining({ term: 'old', tool: 'a' })]);
    expect(learned.size).toBe(2);
    expect(learned.pull(['old'], 5 * DAY).size).toBe(0);
  });
});

describe('SearchTrails', () => {
  it('credits every search since the last call when one of them returned the tool called', () => {
    const trails = new SearchTrails();
    trails.searched('s', ['park', 'work'], ['fs__apply_patch']);
    trails.searched('s', ['git', 'stash'], ['git__git_stash']);
    expect(trails.called('s', 'git__git_stash')).toEqual(['park', 'work', 'git', 'stash']);
    // The trail starts again after a call, and a tool no search returned teaches nothing.
    expect(trails.called('s', 'git__git_stash')).toEqual([]);
    trails.searched('s', ['status'], ['git__git_status']);
    expect(trails.called('s', 'fs__read_file')).toEqual([]);
    trails.searched('other', ['status'], ['git__git_status']);
    expect(trails.called('s', 'git__git_status')).toEqual([]);
  });
});

describe('DiscoveryLearning with its SQLite store', () => {
  it('keeps what it learnt across runs, learns nothing when off, and forgets all when cleared', async () => {
    const file = path.join(folder, 'state.sqlite');
    let settings = SETTINGS;
    const open = () =>
      new DiscoveryLearning({
        settings: () => settings,
        store: SqliteAssociationStore.besideState(file),
        log,
      });
    const first = open();
    await first.load();
    first.searched('s1', ['park', 'work'], ['git__git_stash']);
    first.called('s1', 'git__git_stash');
    await first.close();

    const second = open();
    await second.load();
    expect(second.associations?.pull(['park'], Date.now()).get('git__git_stash')).toBeGreaterThan(0.6);
    settings = { ...SETTINGS, learnFromUse: false };
    expect(second.associations).toBeUndefined();
    second.searched('s2', ['shelve'], ['git__git_stash']);
    second.called('s2', 'git__git_stash');
    settings = SETTINGS;
    expect(second.associations?.pull(['shelve'], Date.now()).size).toBe(0);
    await second.clear();
    expect(second.associations?.pull(['park'], Date.now()).size).toBe(0);
    await second.close();

    const third = open();
    await third.load();
    expect(third.associations?.size).toBe(0);
    await third.close();
  });
});

/**
 * The replayed sequence: half the blind set's requests (its even lines) come, one session
 * each, which searches as a person asks and then as a model writes, and calls the right tool
 * when a search returned it among its 15. Then requests come back: twenty of them in other
 * words (`queries-blind.recurring.jsonl`), all forty in the same words, and the forty never
 * seen (the odd lines), as a person and as a model phrases them, to show what learning costs
 * requests it never saw.
 */
describe('learning from use, on a replayed sequence', () => {
  const registry = evalRegistry();
  const requests = evalQueries('queries-blind.jsonl');
  const asModels = modelPhrased('queries-blind.jsonl');
  const recurring = recurringRequests('queries-blind.jsonl');
  const seen = (at: number) => at % 2 === 0;
  expect(recurring.every(({ at }) => seen(at))).toBe(true);

  const learning = new DiscoveryLearning({ settings: () => SETTINGS, log });
  const learnt = new ToolIndex({ learned: () => learning.associations });
  const plain = new ToolIndex();
  for (const entry of registry) {
    learnt.upsert(entry);
    plain.upsert(entry);
  }
  const measure = (index: ToolIndex) => (query: EvalQuery) => {
    const scores = new Map(registry.map(({ name }) => [name, 0]));
    for (const hit of index.search(query.q, registry.length)) scores.set(hit.name, hit.score);
    return queryMetrics(scores, query.relevant);
  };

  requests.forEach((request, at) => {
    if (!seen(at)) return;
    const session = `session-${at}`;
    for (const query of [request.q, asModels[at]!.q]) {
      const found = learnt.find(query, 15);
      learning.searched(
        session,
        found.terms,
        found.hits.map((hit) => hit.name),
      );
    }
    const tool = [...request.relevant].find((name) =>
      [request.q, asModels[at]!.q].some((query) => learnt.search(query, 15).some((hit) => hit.name === name)),
    );
    if (tool) learning.called(session, tool);
  });

  const sets: Record<string, EvalQuery[]> = {
    'recurring, in other words': recurring,
    'recurring, in the same words': requests.filter((_, at) => seen(at)),
    'never seen, as a person asks': requests.filter((_, at) => !seen(at)),
    'never seen, as a model writes': asModels.filter((_, at) => !seen(at)),
  };
  const figures = Object.fromEntries(
    Object.entries(sets).map(([label, queries]) => [
      label,
      { without: meanMetrics(queries.map(measure(plain))), with: meanMetrics(queries.map(measure(learnt))) },
    ]),
  );

  it('lifts the tools recurring needs led to, and costs the rest little', () => {
    const cells = (metrics: QueryMetrics) =>
      [metrics.recallAt1, metrics.recallAt5, metrics.recallAt15].map((value) => value.toFixed(3)).join(' / ');
    console.error(
      [
        '| requests | without learning R@1 / R@5 / R@15 | with learning |',
        ...Object.entries(figures).map(
          ([label, pair]) => `| ${label} | ${cells(pair.without)} | ${cells(pair.with)} |`,
        ),
      ].join('\n'),
    );
    // Said again in other words, a need is found first and among the listed more often, and
    // never less often among the first five (where the words alone already find 13 of 20).
    const otherWords = figures['recurring, in other words']!;
    expect(otherWords.with.recallAt1).toBeGreaterThan(otherWords.without.recallAt1);
    expect(otherWords.with.recallAt15).toBeGreaterThan(otherWords.without.recallAt15);
    expect(otherWords.with.recallAt5).toBeGreaterThanOrEqual(otherWords.without.recallAt5);
    const sameWords = figures['recurring, in the same words']!;
    expect(sameWords.with.recallAt5).toBeGreaterThan(sameWords.without.recallAt5);
    for (const label of ['never seen, as a person asks', 'never seen, as a model writes']) {
      expect(figures[label]!.with.recallAt5).toBeGreaterThanOrEqual(figures[label]!.without.recallAt5 - 0.05);
    }
  });
});

describe('an aggregator whose discovery.sqlite cannot be opened', () => {
  it('starts, learns in memory only, and says so in its log', async () => {
    const home = mkdtempSync(path.join(folder, 'blocked-'));
    mkdirSync(path.join(home, 'discovery.sqlite'));
    const state = SqliteState.open(path.join(home, 'state.sqlite'));
    const lines: string[] = [];
    const loaded = parseConfig({ mcpServers: {} });
    const aggregator = await Aggregator.start({
      config: loaded.config,
      servers: loaded.servers,
      state,
      log: createLogger({ level: 'warning', sink: (line) => lines.push(line) }),
    });
    try {
      expect(lines.join('\n')).toMatch(/kept in memory only: .*discovery\.sqlite cannot be opened/);
      expect(aggregator.learning.associations?.size).toBe(0);
    } finally {
      await aggregator.stop();
      await state.close();
    }
  });
});
