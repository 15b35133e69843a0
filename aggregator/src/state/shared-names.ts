/**
 * Two fleets (or test runs) sharing one Redis or one database keep apart by a key prefix and a
 * schema of their own, set for every command at once in the environment.
 */
/** The prefix of every Redis key and channel of toolmesh: `state.redisPrefix`, else $TOOLMESH_REDIS_PREFIX, else `toolmesh:`. */
export function redisKeyPrefix(configured?: string): string {
  return configured ?? sharedNamesFromEnvironment().redisKeyPrefix ?? 'toolmesh:';
}

export function sharedNamesFromEnvironment(): { redisKeyPrefix?: string; postgresSchema?: string } {
  const { TOOLMESH_REDIS_PREFIX: redisKeyPrefix, TOOLMESH_POSTGRES_SCHEMA: postgresSchema } = process.env;
  return { ...(redisKeyPrefix && { redisKeyPrefix }), ...(postgresSchema && { postgresSchema }) };
}
