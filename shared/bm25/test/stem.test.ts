import { describe, expect, it } from 'vitest';
import { stem } from '../src/index.js';

const MEETING = [
  ['issue', 'issues'],
  ['query', 'queries'],
  ['branch', 'branches'],
  ['process', 'processes'],
  ['status', 'statuses'],
  ['delete', 'deleted', 'deleting', 'deletion'],
  ['run', 'running'],
  ['log', 'logged', 'logs'],
  ['modify', 'modified', 'modifying'],
  ['organize', 'organization', 'organizations'],
  ['configure', 'configuration'],
  ['deploy', 'deployment', 'deployments'],
  ['set', 'settings'],
];

const UNTOUCHED = [
  'string',
  'thing',
  'need',
  'speed',
  'status',
  'analysis',
  'access',
  'comment',
  'payment',
  'ping',
];

describe('stem', () => {
  it.each(MEETING)('gives %s and its forms one stem', (...forms) => {
    expect(new Set(forms.map(stem)).size).toBe(1);
  });

  it.each(UNTOUCHED)('leaves %s alone or nearly so', (word) => {
    expect(word.startsWith(stem(word))).toBe(true);
    expect(stem(word).length).toBeGreaterThanOrEqual(Math.min(word.length, 4) - 1);
  });

  it('keeps words apart that only look alike', () => {
    expect(stem('comment')).not.toBe(stem('come'));
    expect(stem('string')).not.toBe(stem('str'));
  });

  it('leaves short words, digits and non-ASCII words unchanged', () => {
    expect(stem('go')).toBe('go');
    expect(stem('2024')).toBe('2024');
    expect(stem('größe')).toBe('größe');
  });
});
