import { describe, expect, it } from 'vitest';
import {
  BrowserSessions,
  SESSION_LIFETIME_MS,
  SIGN_IN_CODE_LIFETIME_MS,
  sameSecret,
} from '../src/ui/browser-sessions.js';

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('browser sessions of the dashboard', () => {
  it('redeems a sign-in code once, and not after it expired', () => {
    const time = clock();
    const sessions = new BrowserSessions(time.now);
    const code = sessions.issueCode('tm_secret');
    expect(sessions.redeemCode(code)).toEqual({ token: 'tm_secret' });
    expect(sessions.redeemCode(code)).toBe(false);
    const late = sessions.issueCode('tm_secret');
    time.advance(SIGN_IN_CODE_LIFETIME_MS);
    expect(sessions.redeemCode(late)).toBe(false);
    expect(sessions.redeemCode('guessed')).toBe(false);
  });

  it('keeps a session for its lifetime, each with its own unguessable id and CSRF secret', () => {
    const time = clock();
    const sessions = new BrowserSessions(time.now);
    const first = sessions.open('tm_a');
    const second = sessions.open('tm_a');
    expect(first).not.toBe(second);
    expect(first).toMatch(/^[\w-]{43}$/);
    expect(sessions.get(first)?.csrf).not.toBe(sessions.get(second)?.csrf);
    time.advance(SESSION_LIFETIME_MS - 1);
    expect(sessions.get(first)?.token).toBe('tm_a');
    time.advance(1);
    expect(sessions.get(first)).toBeUndefined();
    sessions.close(second);
    expect(sessions.get(second)).toBeUndefined();
    expect(sessions.get(undefined)).toBeUndefined();
  });

  it('compares secrets whole', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('ab', 'abc')).toBe(false);
    expect(sameSecret('abd', 'abc')).toBe(false);
    expect(sameSecret(undefined, 'abc')).toBe(false);
  });
});
