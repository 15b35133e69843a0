/**
 * A shared store (Redis, PostgreSQL) did not answer. The operation did not happen: toolmesh never
 * falls back to memory, which would let two replicas disagree. An HTTP front answers it with 503.
 */
export class StateUnavailableError extends Error {
  override readonly name = 'StateUnavailableError';
  readonly status = 503;

  constructor(
    readonly store: 'redis' | 'postgres',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A store's location without its credentials, for messages and logs. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}
