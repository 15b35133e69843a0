import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { newTokenSecret, tokenHash } from './token-secret.js';
import type { TokenRegistry } from './token-store.js';

export const LOCAL_TOKEN_NAME = 'local';

/** How long a start that lost the race to make the local token waits for the winner to record it. */
const RECORDED_WITHIN_MS = 2000;

/** Where the first start keeps the one token it makes, for the person at this machine. */
export function localTokenFile(dataDir: string): string {
  return path.join(dataDir, 'aggregator', 'local-token');
}

function readSecret(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Puts `secret` at `file` (mode 0600) unless a file is there already: a hard link is atomic, a plain write is not. */
function claim(file: string, secret: string): boolean {
  const temporary = `${file}.${process.pid}.tmp`;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(temporary, `${secret}\n`, { mode: 0o600 });
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Whether `secret` is (or, when another start just made it, soon becomes) one of the store's tokens. */
async function isRecorded(store: TokenRegistry, secret: string): Promise<boolean> {
  const hash = tokenHash(secret);
  const deadline = Date.now() + RECORDED_WITHIN_MS;
  for (;;) {
    if (store.list().some((record) => record.sha256 === hash)) return true;
    // Only a start racing this one leaves a secret unrecorded, and only while the store is empty.
    if (store.list().length > 0 || Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The token of the person at this machine: made at the first start when no token exists, so
 * the endpoint is never open, and shown again at every start while it is still valid. Once
 * revoked it is not made again as long as other tokens exist. Two first starts at once agree
 * on one token: the one that claims the file makes it.
 */
export async function localToken(
  store: TokenRegistry,
  file: string,
  configuredTokens: number,
): Promise<string | undefined> {
  const kept = readSecret(file);
  if (kept && (await isRecorded(store, kept))) return kept;
  if (configuredTokens > 0 || store.list().length > 0) return undefined;
  // A secret nobody recorded (its token revoked, then the store emptied) is stale.
  if (kept) rmSync(file, { force: true });
  const candidate = newTokenSecret();
  if (claim(file, candidate)) {
    // Not an approver: the client holding it could otherwise approve its own calls.
    await store.create({ name: LOCAL_TOKEN_NAME, approver: false }, candidate);
    return candidate;
  }
  const winner = readSecret(file);
  return winner && (await isRecorded(store, winner)) ? winner : undefined;
}
