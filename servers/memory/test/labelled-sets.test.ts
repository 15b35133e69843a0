import { describe, expect, it } from 'vitest';
import { stem } from '../src/store/contradiction.js';
import { words } from '../src/store/keyword-query.js';
import { contradictionSet, harmonizeScores, searchRecallAt5, searchSet } from './labelled-sets.js';

const STOP = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'in',
  'on',
  'is',
  'are',
  'we',
  'do',
  'when',
  'how',
  'with',
  'our',
  'for',
  'and',
  'at',
  'by',
]);
const stems = (text: string) =>
  new Set(
    words(text)
      .filter((w) => !STOP.has(w))
      .map(stem),
  );

describe('the labelled sets', () => {
  it('are what they claim: meaning queries share no word with their answer', () => {
    for (const { query, answer } of searchSet.meaning) {
      const answerStems = stems(searchSet.facts[answer] as string);
      expect(
        [...stems(query)].filter((s) => answerStems.has(s)),
        query,
      ).toEqual([]);
    }
    expect(contradictionSet.pairs.filter((p) => p.contradicts).length).toBeGreaterThan(10);
    expect(contradictionSet.pairs.filter((p) => !p.contradicts).length).toBeGreaterThan(10);
  });

  it('search: keyword finds exact terms, semantic finds meaning keyword cannot, hybrid keeps both', async () => {
    const { recall, misses } = await searchRecallAt5();
    if (process.env.MEMORY_EVAL === 'print') console.log(JSON.stringify({ recall, misses }, null, 2));
    expect(recall.exact.keyword).toBeGreaterThanOrEqual(0.9);
    expect(recall.meaning.keyword).toBeLessThanOrEqual(0.2);
    expect(recall.meaning.semantic).toBeGreaterThan(recall.meaning.keyword + 0.2);
    expect(recall.meaning.hybrid).toBeGreaterThan(recall.meaning.keyword);
    expect(recall.exact.hybrid).toBeGreaterThanOrEqual(0.8);
  });

  it('harmonize: precision and recall on the contradiction pairs', async () => {
    const scores = await harmonizeScores();
    if (process.env.MEMORY_EVAL === 'print') console.log(JSON.stringify(scores, null, 2));
    expect(scores.precision).toBeGreaterThanOrEqual(0.8);
    expect(scores.recall).toBeGreaterThanOrEqual(0.6);
  });
});
