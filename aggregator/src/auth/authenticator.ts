import type { AggregatorConfig } from '../config/schema.js';
import { StateUnavailableError } from '../state/state-unavailable.js';
import { tokenHash } from './token-secret.js';
import type { TokenRegistry } from './token-store.js';

/** Who a request comes from, and what their token lets them do. */
export interface Principal {
  identity: string;
  /** The token's hash: what its sessions and its rate limit are bound to. */
  key: string;
  /** The workspaces the token may use; undefined for all. */
  workspaces?: string[];
  /** The modes the token may use; undefined for all. */
  modes?: string[];
  approver: boolean;
}

/**
 * An HTTP answer instead of service: 401 without a valid token, 403 outside its rights, 429 over
 * its rate, 503 when the shared token store cannot say whether a token was revoked.
 */
export class AuthRefusal extends Error {
  constructor(
    readonly status: 401 | 403 | 429 | 503,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const HOW_TO_GET_ONE =
  "toolmesh prints a token in the client config snippet when it starts (kept in the data directory's aggregator/local-token); make more with `toolmesh token create --name NAME`.";

/** The 429 of a token over its rate, the same from the local limiter and the fleet's one in Redis. */
export function tooManyRequests(identity: string, perMinute: number, waitSeconds: number): AuthRefusal {
  return new AuthRefusal(
    429,
    `Too many requests for token ${identity}: it may make ${perMinute} a minute. Retry in ${waitSeconds} s, or raise auth.requestsPerMinute in the config.`,
    { 'Retry-After': String(waitSeconds) },
  );
}

/** What the authenticator takes each request from; with Redis, the fleet's limit is taken before it (shared-rate-limit.ts). */
export interface RequestLimiter {
  requestsPerMinute(): number;
  /** 0 when the request may go ahead, else the seconds to wait. */
  take(caller: string): number;
}

function unauthorized(problem: string): AuthRefusal {
  return new AuthRefusal(401, `${problem} ${HOW_TO_GET_ONE}`, {
    'WWW-Authenticate': 'Bearer realm="toolmesh"',
  });
}

/** Finds the token of a request among those made by `toolmesh token` and those in the config, then applies its rate limit. */
export class Authenticator {
  /**
   * Requests judged already, on a token copy read again as they came in (the fleet's rate limit
   * does that first): a later check takes the same answer rather than judging them again on a
   * copy that aged while the request waited on Redis or a busy machine, and refusing them for it.
   */
  readonly #judged = new WeakMap<object, Principal>();

  constructor(
    readonly store: TokenRegistry,
    private readonly configured: () => AggregatorConfig['auth']['tokens'],
    private readonly limiter: RequestLimiter,
  ) {}

  authenticate(authorization: string | undefined): Principal {
    if (authorization === undefined || authorization.trim() === '')
      throw unauthorized('No bearer token: send the header "Authorization: Bearer <token>".');
    const match = /^Bearer +(\S+)\s*$/i.exec(authorization);
    if (!match)
      throw unauthorized(
        'The Authorization header must be "Bearer <token>", with the token and nothing else.',
      );
    const principal = this.#principalByHash(tokenHash(match[1] as string));
    if (!principal)
      throw unauthorized('This token is not valid: it was revoked, or toolmesh never issued it.');
    const waitSeconds = this.limiter.take(principal.key);
    if (waitSeconds > 0)
      throw tooManyRequests(principal.identity, this.limiter.requestsPerMinute(), waitSeconds);
    return principal;
  }

  /** `authenticate`, its answer kept for `request`: the request's later checks take it (see #judged). */
  judge(request: { headers: { authorization?: string | undefined } }): Principal {
    const principal = this.authenticate(request.headers.authorization);
    this.#judged.set(request, principal);
    return principal;
  }

  /** The answer `judge` gave for `request`, else `authenticate`'s now. */
  principalOf(request: { headers: { authorization?: string | undefined } }): Principal {
    return this.#judged.get(request) ?? this.authenticate(request.headers.authorization);
  }

  /** Whether `request` carries a token accepted now: principalOf's verdict without its refusal. */
  accepts(request: { headers: { authorization?: string | undefined } }): boolean {
    try {
      this.principalOf(request);
      return true;
    } catch (error) {
      if (error instanceof AuthRefusal) return false;
      throw error;
    }
  }

  /** Whether any token exists, so that a server off loopback has someone to serve. */
  hasTokens(): boolean {
    return this.configured().length > 0 || this.#made().length > 0;
  }

  /** The tokens `toolmesh token` made; a store that cannot vouch for them refuses with 503, never lets one by. */
  #made() {
    try {
      return this.store.list();
    } catch (error) {
      if (error instanceof StateUnavailableError)
        throw new AuthRefusal(503, error.message, { 'Retry-After': '1' });
      throw error;
    }
  }

  #principalByHash(sha256: string): Principal | undefined {
    const found =
      this.configured().find((token) => token.sha256 === sha256) ??
      this.#made().find((token) => token.sha256 === sha256);
    if (!found) return undefined;
    return {
      identity: found.name,
      key: sha256,
      ...(found.workspaces && { workspaces: found.workspaces }),
      ...(found.modes && { modes: found.modes }),
      approver: found.approver,
    };
  }
}
