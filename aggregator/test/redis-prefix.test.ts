// One prefix for every Redis key toolmesh keeps: the config's state.redisPrefix, else
// $TOOLMESH_REDIS_PREFIX, else toolmesh:. The fleet's keys follow it too (fleet-replicas.test.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { stateSettingsOf } from '../src/cli/state-flags.js';
import { parseConfig } from '../src/config/load.js';
import { redisKeyPrefix } from '../src/state/shared-names.js';

const saved = process.env.TOOLMESH_REDIS_PREFIX;
afterEach(() => {
  if (saved === undefined) delete process.env.TOOLMESH_REDIS_PREFIX;
  else process.env.TOOLMESH_REDIS_PREFIX = saved;
});

describe('the Redis key prefix', () => {
  it('is the config’s state.redisPrefix, else $TOOLMESH_REDIS_PREFIX, else toolmesh:', () => {
    delete process.env.TOOLMESH_REDIS_PREFIX;
    expect(redisKeyPrefix()).toBe('toolmesh:');
    process.env.TOOLMESH_REDIS_PREFIX = 'from-env:';
    expect(redisKeyPrefix()).toBe('from-env:');
    const loaded = parseConfig({ state: { redis: 'redis://127.0.0.1:6379', redisPrefix: 'team-a:' } });
    const settings = stateSettingsOf({}, loaded);
    expect(settings).toEqual({ redis: 'redis://127.0.0.1:6379', redisKeyPrefix: 'team-a:' });
    expect(redisKeyPrefix(settings.redisKeyPrefix)).toBe('team-a:');
  });

  it('has no second setting for the fleet: fleet.keyPrefix is refused, naming the key', () => {
    expect(() => parseConfig({ fleet: { keyPrefix: 'old:' } })).toThrow(/keyPrefix/);
  });
});
