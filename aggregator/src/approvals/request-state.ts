import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { dataDirectory } from '@toolmesh/core';
import { canonicalJson } from '../audit/arguments-digest.js';

/**
 * What every 2026-07-28 round trip toolmesh opens carries from the call that asked to the call
 * that answers: whom and what it is for, and until when.
 */
interface SealedCall {
  /** The state id of the principal that asked. */
  principal: string;
  tool: string;
  /** A keyed digest of the arguments, so a changed argument is a different call. */
  digest: string;
  expiresAt: number;
}

/** An approval round trip: the approval it opened (its id is the nonce: deciding it is single-use). */
export interface ApprovalRequestState extends SealedCall {
  kind: 'approval';
  approval: string;
}

/**
 * A relay round trip: the call waits, parked in one toolmesh process, for its client's answer to
 * what its server asked. The round is the nonce: each round's state resumes the call once.
 */
export interface RelayRequestState extends SealedCall {
  kind: 'relay';
  /** The parked call's id. */
  call: string;
  round: number;
  /** The toolmesh process that holds the call. */
  replica: string;
}

export type RequestState = ApprovalRequestState | RelayRequestState;

export type OpenedState<S extends RequestState = RequestState> = { state: S } | { problem: string };

/** What a retry says it is: the caller and the call it resumes. */
export interface RetryingCall {
  principal: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** The key file in the data directory; any toolmesh process on the same data directory shares it. */
export const REQUEST_STATE_KEY_FILE = 'request-state.key';

/**
 * The key of the data directory, made once with mode 0600. It is linked into place, so of two
 * processes starting at once one key wins and both read it; nobody reads half a key.
 */
export function dataDirectoryKey(folder: string): Buffer {
  const file = path.join(folder, REQUEST_STATE_KEY_FILE);
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}

/**
 * Seals round-trip request state with an HMAC, since it travels through the client and comes
 * back as whatever the client sends; opens only what this key sealed, whole.
 */
export class RequestStateSeal {
  #key: Buffer | undefined;

  constructor(private readonly key: () => Buffer) {}

  #mac(text: string): Buffer {
    this.#key ??= this.key();
    return createHmac('sha256', this.#key).update(text).digest();
  }

  /** A digest of the arguments under the key: equal arguments, equal digest; unreadable without it. */
  digest(args: Record<string, unknown>): string {
    return this.#mac(`arguments\0${canonicalJson(args)}`).toString('base64url');
  }

  seal(state: RequestState): string {
    const body = Buffer.from(JSON.stringify(state)).toString('base64url');
    return `${body}.${this.#mac(`state\0${body}`).toString('base64url')}`;
  }

  open(sealed: unknown): OpenedState {
    if (typeof sealed !== 'string' || !/^[\w-]+\.[\w-]+$/.test(sealed))
      return { problem: 'the request state is not one toolmesh issued' };
    const [body, mac] = sealed.split('.') as [string, string];
    const expected = this.#mac(`state\0${body}`);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { problem: 'the request state was altered or issued by another key' };
    try {
      return { state: JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as RequestState };
    } catch {
      return { problem: 'the request state is not one toolmesh issued' };
    }
  }

  /**
   * Opens a state and checks it against the retry that sent it back: sealed by this key, of the
   * kind expected, issued to this caller, for this tool and these arguments. Expiry is left to
   * the caller, which knows what an expired state still holds (an approval to close).
   */
  check<K extends RequestState['kind']>(
    sealed: unknown,
    kind: K,
    retry: RetryingCall,
  ): OpenedState<Extract<RequestState, { kind: K }>> {
    const opened = this.open(sealed);
    if ('problem' in opened) return opened;
    const { state } = opened;
    if (state.kind !== kind)
      return {
        problem: `the request state belongs to ${state.kind === 'relay' ? 'a question of a server' : 'an approval'}, not to this round`,
      };
    if (state.principal !== retry.principal)
      return { problem: 'the request state was issued to another caller' };
    if (state.tool !== retry.tool) return { problem: `the request state was issued for ${state.tool}` };
    if (state.digest !== this.digest(retry.arguments))
      return { problem: 'the arguments differ from those the request state was issued for' };
    return { state: state as Extract<RequestState, { kind: K }> };
  }
}

/**
 * The key that seals approval round trips: TOOLMESH_REQUEST_STATE_KEY (hex) when set, so replicas
 * on different data directories share one, else the data directory's own.
 */
export function configuredRequestStateKey(): Buffer {
  const configured = process.env.TOOLMESH_REQUEST_STATE_KEY;
  if (configured) {
    const key = Buffer.from(configured, 'hex');
    if (key.length < 32)
      throw new Error('TOOLMESH_REQUEST_STATE_KEY must be at least 32 bytes as hex (64 hex digits)');
    return key;
  }
  return dataDirectoryKey(dataDirectory());
}
