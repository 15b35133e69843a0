import type { ClientSession, Exposure } from './session.js';

/** How long a 2026-07-28 client counts as active after its last request: a legacy session's idle time. */
export const MODERN_ACTIVE_MS = 30 * 60_000;
/** The most kept at once; past it the least recently active are forgotten first. */
const MODERN_KEPT = 1000;

/** What a 2026-07-28 request says of the client that sent it, in its `_meta`. */
export interface ModernRequestFacts {
  revision: string;
  client?: string;
}

/** A 2026-07-28 client as the dashboard shows it: it has no session, so it is its token on one endpoint. */
export interface ModernClient extends ModernRequestFacts {
  identity: string;
  transport: 'stdio' | 'http';
  /** The mode its calls run in now: the endpoint's, or the one an approved exit_plan_mode switched it to. */
  mode: string;
  workspace?: string;
  exposure: Exposure;
  firstSeen: number;
  lastActive: number;
  requests: number;
}

/**
 * The 2026-07-28 clients this process served lately. They open no session, so nothing else
 * remembers them: each is kept under its state id (token, endpoint mode and workspace), the key
 * its mode switch and todo list live under too, in memory only and for MODERN_ACTIVE_MS.
 */
export class RecentModernClients {
  readonly #seen = new Map<string, ModernClient>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A request acting as `session` (a 2026-07-28 one) arrived. */
  saw(session: ClientSession, facts: ModernRequestFacts): void {
    const now = this.now();
    const before = this.#seen.get(session.id);
    // Re-inserted, so the map stays ordered from least to most recently active.
    this.#seen.delete(session.id);
    this.#seen.set(session.id, {
      identity: session.identity,
      transport: session.transport,
      mode: session.mode,
      ...(session.workspace !== undefined && { workspace: session.workspace }),
      exposure: session.exposure,
      revision: facts.revision,
      ...(facts.client !== undefined && { client: facts.client }),
      firstSeen: before?.firstSeen ?? now,
      lastActive: now,
      requests: (before?.requests ?? 0) + 1,
    });
    for (const oldest of this.#seen.keys()) {
      if (this.#seen.size <= MODERN_KEPT) break;
      this.#seen.delete(oldest);
    }
  }

  /** The client under `stateId` switched mode: its next requests run in `mode`. */
  switched(stateId: string, mode: string): void {
    const seen = this.#seen.get(stateId);
    if (seen) seen.mode = mode;
  }

  /** Those active within MODERN_ACTIVE_MS, most recent first. */
  active(): ModernClient[] {
    const since = this.now() - MODERN_ACTIVE_MS;
    for (const [id, seen] of this.#seen) {
      if (seen.lastActive >= since) break;
      this.#seen.delete(id);
    }
    return [...this.#seen.values()].reverse();
  }
}
