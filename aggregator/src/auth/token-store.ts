import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { tokenNameProblem } from './token-name.js';
import { newTokenSecret, tokenHash } from './token-secret.js';
import { writePrivateFile } from './write-private-file.js';

/** A token as toolmesh keeps it: who it stands for and what it may do, never the token itself. */
export interface TokenRecord {
  name: string;
  sha256: string;
  /** The workspaces it may use; undefined for all. */
  workspaces?: string[];
  /** The modes it may use; undefined for all. */
  modes?: string[];
  /** Whether it may decide approvals. */
  approver: boolean;
  createdAt: string;
}

export type NewToken = Omit<TokenRecord, 'sha256' | 'createdAt'>;

export class TokenStoreError extends Error {
  override readonly name = 'TokenStoreError';
}

/**
 * Where the tokens `toolmesh token create` made are kept: a file on one machine, or Redis for a
 * fleet. `list` answers from memory (it is on every request's path) and is never older than a
 * revocation by more than a second.
 */
export interface TokenRegistry {
  /** Where they are kept, for messages: the file, or the Redis server without credentials. */
  readonly location: string;
  list(): TokenRecord[];
  /**
   * A store that answers from a copy (Redis) reads it again now if it has aged, so a request is
   * judged on a fresh copy, not refused because this process was starved of CPU for a moment.
   */
  freshen?(): Promise<void>;
  /** Makes a token and returns it; only its hash is kept, so this is the one time it is shown. */
  create(token: NewToken, secret?: string): Promise<{ secret: string; record: TokenRecord }>;
  /** Removes a token; false when none has that name. */
  revoke(name: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The record a new token is kept as, after checking its name is valid and free among `existing`. */
export function newTokenRecord(token: NewToken, secret: string, existing: TokenRecord[]): TokenRecord {
  const problem = tokenNameProblem(token.name);
  if (problem) throw new TokenStoreError(problem);
  if (existing.some((record) => record.name === token.name)) throw nameTaken(token.name);
  return {
    name: token.name,
    sha256: tokenHash(secret),
    ...(token.workspaces && { workspaces: token.workspaces }),
    ...(token.modes && { modes: token.modes }),
    approver: token.approver,
    createdAt: new Date().toISOString(),
  };
}

export function nameTaken(name: string): TokenStoreError {
  return new TokenStoreError(
    `a token named ${name} exists already: revoke it first (toolmesh token revoke ${name}) or choose another name`,
  );
}

/** Where `toolmesh token` keeps its tokens: beside the aggregator's state, private to the user. */
export function tokenStoreFile(dataDir: string): string {
  return path.join(dataDir, 'aggregator', 'tokens.json');
}

/**
 * The tokens `toolmesh token create` made, in one JSON file of hashes (mode 0600). The server
 * reads it again whenever it changes, so a revoked token stops working at once.
 */
export class TokenStore implements TokenRegistry {
  #cached: { stamp: string; records: TokenRecord[] } | undefined;

  constructor(readonly file: string) {}

  get location(): string {
    return this.file;
  }

  list(): TokenRecord[] {
    let stamp: string;
    try {
      const stat = statSync(this.file);
      stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    if (this.#cached?.stamp === stamp) return this.#cached.records;
    const records = this.#read();
    this.#cached = { stamp, records };
    return records;
  }

  async create(token: NewToken, secret = newTokenSecret()): Promise<{ secret: string; record: TokenRecord }> {
    const records = this.list();
    const record = newTokenRecord(token, secret, records);
    this.#write([...records, record]);
    return { secret, record };
  }

  async revoke(name: string): Promise<boolean> {
    const records = this.list();
    const kept = records.filter((record) => record.name !== name);
    if (kept.length === records.length) return false;
    this.#write(kept);
    return true;
  }

  async close(): Promise<void> {}

  #read(): TokenRecord[] {
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as { tokens?: unknown };
      if (!Array.isArray(parsed.tokens)) throw new Error('it has no "tokens" list');
      return parsed.tokens as TokenRecord[];
    } catch (error) {
      throw new TokenStoreError(
        `cannot read toolmesh's tokens from ${this.file}: ${(error as Error).message}. Move it aside and create tokens again with toolmesh token create.`,
      );
    }
  }

  #write(records: TokenRecord[]): void {
    writePrivateFile(this.file, `${JSON.stringify({ tokens: records }, null, 2)}\n`);
    this.#cached = undefined;
  }
}
