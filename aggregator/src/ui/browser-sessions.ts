import { randomBytes, timingSafeEqual } from 'node:crypto';

/** Who a signed-in browser acts for, settled afresh on every request from the token it signed in with. */
export interface Viewer {
  identity: string;
  /**
   * The name the viewer decides approvals under, and which calls count as their own. With
   * authentication off every client is `anonymous` too, so the viewer needs a name of its own.
   */
  decidesAs: string;
  /** Whether the token may decide approvals. */
  approver: boolean;
  /** The workspaces the token may decide for; undefined for all. */
  workspaces?: readonly string[];
}

interface BrowserSession {
  /** The token the browser signed in with; undefined when authentication is off. Kept in memory only. */
  token: string | undefined;
  /** What every state-changing request must echo in its X-CSRF-Token header. */
  csrf: string;
  expiresAt: number;
}

/** How long a browser stays signed in; after that it signs in again. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60_000;
/** How long a sign-in link printed at start may be used (once). */
export const SIGN_IN_CODE_LIFETIME_MS = 24 * 60 * 60_000;

const secret = () => randomBytes(32).toString('base64url');

export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The browsers signed in to the dashboard, by the random id their cookie holds, and the
 * one-time sign-in codes. Both live in this process only: a restart signs every browser out.
 */
export class BrowserSessions {
  readonly #sessions = new Map<string, BrowserSession>();
  readonly #codes = new Map<string, { token: string | undefined; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A code that signs one browser in with `token`, once. */
  issueCode(token: string | undefined): string {
    const code = secret();
    this.#codes.set(code, { token, expiresAt: this.now() + SIGN_IN_CODE_LIFETIME_MS });
    return code;
  }

  /** Uses a code up; `false` for one unknown, used or expired. */
  redeemCode(code: string): { token: string | undefined } | false {
    const found = this.#codes.get(code);
    this.#codes.delete(code);
    if (!found || found.expiresAt <= this.now()) return false;
    return { token: found.token };
  }

  /** Opens a session; the id goes in the cookie. */
  open(token: string | undefined): string {
    this.#sweep();
    const id = secret();
    this.#sessions.set(id, { token, csrf: secret(), expiresAt: this.now() + SESSION_LIFETIME_MS });
    return id;
  }

  get(id: string | undefined): BrowserSession | undefined {
    if (id === undefined) return undefined;
    const session = this.#sessions.get(id);
    if (session && session.expiresAt > this.now()) return session;
    this.#sessions.delete(id);
    return undefined;
  }

  close(id: string | undefined): void {
    if (id !== undefined) this.#sessions.delete(id);
  }

  #sweep(): void {
    const now = this.now();
    for (const [id, session] of this.#sessions) if (session.expiresAt <= now) this.#sessions.delete(id);
    for (const [code, found] of this.#codes) if (found.expiresAt <= now) this.#codes.delete(code);
  }
}
