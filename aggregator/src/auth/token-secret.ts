import { createHash, randomBytes } from 'node:crypto';

/** Marks a toolmesh token, so a secret scanner (and a person) can tell what leaked. */
export const TOKEN_PREFIX = 'tm_';

/** A new bearer token: 256 random bits. */
export function newTokenSecret(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** What is stored instead of a token. A token has 256 random bits, so a plain hash cannot be reversed. */
export function tokenHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
