import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../audit/arguments-digest.js';

/**
 * What a 2026-07-28 approval round trip carries from the call that asked to the call that
 * answers: the approval it opened (its id is the nonce: deciding it is single-use), whom and
 * what it is for, and until when.
 */
export interface ApprovalRequestState {
  approval: string;
  /** The state id of the principal that asked. */
  principal: string;
  tool: string;
  /** A keyed digest of the arguments, so a changed argument is a different call. */
  digest: string;
  expiresAt: number;
}

export type OpenedState = { state: ApprovalRequestState } | { problem: string };

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
 * Seals approval request state with an HMAC, since it travels through the client and comes
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

  seal(state: ApprovalRequestState): string {
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
      return { state: JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as ApprovalRequestState };
    } catch {
      return { problem: 'the request state is not one toolmesh issued' };
    }
  }
}
