// The labelled sets of test/fixtures, scored: Recall@5 of each search mode on queries that share
// no word with their answer and on queries that need an exact term, and the precision and recall
// of harmonize_memory on pairs of facts. Used by labelled-sets.test.ts (floors) and, with
// MEMORY_EVAL=print, to print the figures docs/memory-eval.md reports.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createLogger } from '@toolmesh/core';
import { SEARCH_MODES, type SearchMode } from '../src/engine.js';
import { openMemoryEngine } from '../src/server.js';
import { TestClock, tempDir } from './fixture.js';

interface LabelledQuery {
  query: string;
  answer: number;
}

export const searchSet = JSON.parse(
  readFileSync(new URL('fixtures/search-set.json', import.meta.url), 'utf8'),
) as {
  facts: string[];
  meaning: LabelledQuery[];
  exact: LabelledQuery[];
};

export const contradictionSet = JSON.parse(
  readFileSync(new URL('fixtures/contradiction-set.json', import.meta.url), 'utf8'),
) as { pairs: { older: string; newer: string; contradicts: boolean }[] };

const log = createLogger({ level: 'error', scope: 'eval' });
const actor = { workspace: 'eval', identity: 'eval' };

export type RecallTable = Record<'meaning' | 'exact', Record<SearchMode, number>>;

export async function searchRecallAt5(): Promise<{ recall: RecallTable; misses: string[] }> {
  const engine = openMemoryEngine({ file: path.join(tempDir(), 'eval.db'), log });
  try {
    const ids = searchSet.facts.map(
      (body) => engine.propose(actor, { kind: 'fact', domain: 'general', body }).id,
    );
    const recall = { meaning: {}, exact: {} } as RecallTable;
    const misses: string[] = [];
    for (const group of ['meaning', 'exact'] as const) {
      for (const mode of SEARCH_MODES) {
        let found = 0;
        for (const { query, answer } of searchSet[group]) {
          const result = await engine.search(actor, {
            query,
            mode,
            filter: { kinds: ['fact'] },
            limit: 5,
            includeHot: false,
          });
          if (result.hits.some((hit) => hit.memory.id === ids[answer])) found++;
          else misses.push(`${mode} ${group}: "${query}"`);
        }
        recall[group][mode] = found / searchSet[group].length;
      }
    }
    return { recall, misses };
  } finally {
    await engine.shutdown();
  }
}

export async function harmonizeScores(): Promise<{
  precision: number;
  recall: number;
  truePositives: number;
  found: number;
  positives: number;
  wrong: string[];
}> {
  const clock = new TestClock();
  const engine = openMemoryEngine({ file: path.join(tempDir(), 'eval.db'), log, clock: clock.now });
  try {
    contradictionSet.pairs.forEach((pair, index) => {
      engine.propose(actor, { kind: 'fact', domain: `pair-${index}`, body: pair.older });
      clock.advance(1000);
      engine.propose(actor, { kind: 'fact', domain: `pair-${index}`, body: pair.newer });
    });
    const pass = engine.harmonize(actor, { resolve: false });
    const flagged = new Set(pass.found.map((conflict) => Number(conflict.domain.slice('pair-'.length))));
    const positives = contradictionSet.pairs.filter((pair) => pair.contradicts).length;
    const truePositives = [...flagged].filter((index) => contradictionSet.pairs[index]?.contradicts).length;
    const wrong = contradictionSet.pairs.flatMap((pair, index) =>
      flagged.has(index) === pair.contradicts
        ? []
        : [`${pair.contradicts ? 'missed' : 'false alarm'}: "${pair.older}" / "${pair.newer}"`],
    );
    return {
      precision: flagged.size === 0 ? 0 : truePositives / flagged.size,
      recall: truePositives / positives,
      truePositives,
      found: flagged.size,
      positives,
      wrong,
    };
  } finally {
    await engine.shutdown();
  }
}
