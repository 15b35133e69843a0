import type { Response } from 'express';

interface Closable {
  close(): Promise<void>;
}

interface Entry<T> {
  transport: T;
  /** The identity that opened the session; only it may use the session. */
  owner: string | undefined;
  lastSeen: number;
  openRequests: number;
}

/**
 * The sessions of one HTTP endpoint. A client that vanishes without ending its session (no
 * DELETE) would otherwise hold its transport and server forever; a session with no open
 * request for `idleMs` is closed.
 */
export class SessionTable<T extends Closable> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly idleMs: number) {}

  get size(): number {
    return this.entries.size;
  }

  add(id: string, transport: T, owner?: string): void {
    this.entries.set(id, { transport, owner, lastSeen: Date.now(), openRequests: 0 });
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Takes every session off the table without closing it; returns their ids and transports. */
  release(): Array<[string, T]> {
    const released = [...this.entries].map(([id, entry]): [string, T] => [id, entry.transport]);
    this.entries.clear();
    return released;
  }

  /** Whether the session exists and belongs to someone other than `caller`. */
  isForeign(id: string, caller: string | undefined): boolean {
    const entry = this.entries.get(id);
    return entry !== undefined && entry.owner !== caller;
  }

  delete(id: string): void {
    this.entries.delete(id);
  }

  /** The session's transport, counted as in use until `res` finishes. */
  use(id: string, res: Response): T | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    entry.openRequests++;
    entry.lastSeen = Date.now();
    res.once('close', () => {
      entry.openRequests--;
      entry.lastSeen = Date.now();
    });
    return entry.transport;
  }

  transports(): T[] {
    return [...this.entries.values()].map((entry) => entry.transport);
  }

  /** Closes sessions idle for longer than the limit; returns how many. */
  sweep(now = Date.now()): number {
    let closed = 0;
    for (const [id, entry] of this.entries) {
      if (entry.openRequests > 0 || now - entry.lastSeen < this.idleMs) continue;
      this.entries.delete(id);
      void entry.transport.close().catch(() => undefined);
      closed++;
    }
    return closed;
  }
}
