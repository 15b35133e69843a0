import { openDatabase, type SqliteDatabase, ToolError } from '@toolmesh/core';
import { type Clock, isoAt, parseInstant, systemClock } from './clock.js';
import { type KeywordHits, KeywordIndex } from './keyword-index.js';
import { MEMORY_MIGRATIONS } from './migrations.js';
import { memoryRef, parseMemoryRef } from './refs.js';
import type {
  Actor,
  DomainSummary,
  Memory,
  MemoryFilter,
  MemoryKind,
  MemoryStatus,
  NewMemory,
  Notes,
} from './types.js';

interface MemoryRow {
  id: number;
  kind: MemoryKind;
  domain: string;
  body: string;
  author: string;
  source: string | null;
  valid_from: string;
  valid_until: string | null;
  recorded_at: string;
  status: MemoryStatus;
  superseded_by: number | null;
  successor_kind: MemoryKind | null;
  supersedes: string | null;
  change_reason: string | null;
  changed_by: string | null;
  changed_at: string | null;
}

interface DomainRow {
  id: number;
  name: string;
  creator: string;
}

const MEMORY_COLUMNS = `m.id, m.kind, d.name AS domain, m.body, m.author, m.source, m.valid_from, m.valid_until,
  m.recorded_at, m.status, m.superseded_by, s.kind AS successor_kind, m.change_reason, m.changed_by, m.changed_at,
  (SELECT group_concat(p.id) FROM memories p WHERE p.superseded_by = m.id) AS supersedes`;
const MEMORY_FROM = `memories m JOIN domains d ON d.id = m.domain_id LEFT JOIN memories s ON s.id = m.superseded_by`;

export const DOMAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$/;

export interface MemoryStoreOptions {
  clock?: Clock;
}

/**
 * Long-term memory in one SQLite file: domains and their writers, facts, policies and
 * observations (never edited or deleted, only superseded or retired), per-identity notes and
 * recorded conflicts. It knows nothing of MCP; errors it throws are ToolErrors a caller can act on.
 */
export class MemoryStore {
  readonly db: SqliteDatabase;
  readonly now: Clock;
  private readonly keywords: KeywordIndex;

  constructor(file: string, options: MemoryStoreOptions = {}) {
    this.db = openDatabase(file, MEMORY_MIGRATIONS);
    this.now = options.clock ?? systemClock;
    this.keywords = new KeywordIndex(this.db);
  }

  nowIso(): string {
    return isoAt(this.now());
  }

  shutdown(): void {
    if (this.db.open) this.db.close();
  }

  // ── domains ────────────────────────────────────────────────────────────────

  private domainRow(workspace: string, name: string): DomainRow | undefined {
    return this.db
      .prepare('SELECT id, name, creator FROM domains WHERE workspace = ? AND name = ?')
      .get(workspace, name) as DomainRow | undefined;
  }

  /** The domain, created with the actor as its creator on first use. */
  private ensureDomain(actor: Actor, name: string): DomainRow {
    if (!DOMAIN_NAME.test(name)) {
      throw new ToolError(
        `domain ${JSON.stringify(name)} is not a domain name: use 1-64 letters, digits, ".", "_", "/" or "-", starting with a letter or digit.`,
        'bad_domain',
      );
    }
    const existing = this.domainRow(actor.workspace, name);
    if (existing) return existing;
    const info = this.db
      .prepare('INSERT INTO domains (workspace, name, creator, created_at) VALUES (?, ?, ?, ?)')
      .run(actor.workspace, name, actor.identity, this.nowIso());
    return { id: Number(info.lastInsertRowid), name, creator: actor.identity };
  }

  private writers(domainId: number): string[] {
    return (
      this.db
        .prepare('SELECT identity FROM domain_writers WHERE domain_id = ? ORDER BY identity')
        .all(domainId) as { identity: string }[]
    ).map((row) => row.identity);
  }

  private mayWritePolicies(domain: DomainRow, identity: string): boolean {
    return domain.creator === identity || this.writers(domain.id).includes(identity);
  }

  /** Gives identities the right to write policies in a domain (from --domain-writer at start-up). */
  grantWriters(workspace: string, domain: string, identities: readonly string[]): void {
    this.db
      .transaction(() => {
        const row = this.ensureDomain({ workspace, identity: identities[0] ?? 'anonymous' }, domain);
        const insert = this.db.prepare(
          'INSERT OR IGNORE INTO domain_writers (domain_id, identity) VALUES (?, ?)',
        );
        for (const identity of identities) insert.run(row.id, identity);
      })
      .immediate();
  }

  private requirePolicyWriter(actor: Actor, name: string): DomainRow {
    const domain = this.domainRow(actor.workspace, name);
    if (!domain) return this.ensureDomain(actor, name);
    if (this.mayWritePolicies(domain, actor.identity)) return domain;
    const writers = [domain.creator, ...this.writers(domain.id)];
    throw new ToolError(
      `${actor.identity} may not write policies in domain "${name}": its writers are ${writers.join(', ')} (its creator and those given with --domain-writer). Propose a fact instead, or ask one of them.`,
      'not_a_writer',
    );
  }

  listDomains(actor: Actor): DomainSummary[] {
    const rows = this.db
      .prepare(
        `SELECT d.id, d.name, d.creator,
           (SELECT count(*) FROM memories m WHERE m.domain_id = d.id AND m.kind = 'fact' AND m.status = 'current') AS facts,
           (SELECT count(*) FROM memories m WHERE m.domain_id = d.id AND m.kind = 'policy' AND m.status = 'current') AS policies,
           (SELECT count(*) FROM memories m WHERE m.domain_id = d.id AND m.kind = 'observation') AS observations
         FROM domains d WHERE d.workspace = ? ORDER BY d.name`,
      )
      .all(actor.workspace) as (DomainRow & { facts: number; policies: number; observations: number })[];
    return rows.map((row) => {
      const writers = this.writers(row.id);
      return {
        name: row.name,
        creator: row.creator,
        writers,
        facts: row.facts,
        policies: row.policies,
        observations: row.observations,
        canWritePolicies: row.creator === actor.identity || writers.includes(actor.identity),
      };
    });
  }

  // ── facts, policies, observations ──────────────────────────────────────────

  private toMemory(row: MemoryRow): Memory {
    return {
      id: memoryRef(row.kind, row.id),
      kind: row.kind,
      domain: row.domain,
      body: row.body,
      author: row.author,
      source: row.source,
      validFrom: row.valid_from,
      validUntil: row.valid_until,
      recordedAt: row.recorded_at,
      status: row.status,
      supersededBy:
        row.superseded_by === null ? null : memoryRef(row.successor_kind ?? row.kind, row.superseded_by),
      supersedes: row.supersedes
        ? row.supersedes
            .split(',')
            .map(Number)
            .sort((a, b) => a - b)
            .map((id) => memoryRef(row.kind, id))
        : [],
      change:
        row.change_reason === null
          ? null
          : { reason: row.change_reason, by: row.changed_by ?? '', at: row.changed_at ?? '' },
    };
  }

  private rowById(workspace: string, id: number): MemoryRow | undefined {
    return this.db
      .prepare(`SELECT ${MEMORY_COLUMNS} FROM ${MEMORY_FROM} WHERE m.id = ? AND m.workspace = ?`)
      .get(id, workspace) as MemoryRow | undefined;
  }

  get(workspace: string, ref: string, kind: MemoryKind): Memory {
    const row = this.rowById(workspace, parseMemoryRef(ref, kind));
    if (!row || row.kind !== kind) {
      throw new ToolError(
        `${kind} ${ref} not found in workspace "${workspace}": search_memory finds ${kind === 'policy' ? 'policies (list_policies lists them)' : `${kind}s`}.`,
        'not_found',
      );
    }
    return this.toMemory(row);
  }

  /**
   * The rows of these ids (in that order) that pass the filter; ids of other workspaces are skipped.
   * CROSS JOIN keeps the id list outermost: the planner would otherwise walk the workspace's index.
   */
  byIds(workspace: string, ids: readonly number[], filter: MemoryFilter): Memory[] {
    if (ids.length === 0) return [];
    const where = filterSql(filter);
    const rows = this.db
      .prepare(
        `SELECT ${MEMORY_COLUMNS} FROM json_each(?) j CROSS JOIN ${MEMORY_FROM}
         WHERE m.id = j.value AND m.workspace = ? AND ${where.sql}`,
      )
      .all(JSON.stringify(ids), workspace, ...where.params) as MemoryRow[];
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row ? [this.toMemory(row)] : [];
    });
  }

  /** Which of these row ids belong to the workspace and pass the filter. */
  passing(workspace: string, ids: readonly number[], filter: MemoryFilter): Set<number> {
    if (ids.length === 0) return new Set();
    const where = filterSql(filter);
    const rows = this.db
      .prepare(
        `SELECT m.id FROM json_each(?) j CROSS JOIN memories m JOIN domains d ON d.id = m.domain_id
         WHERE m.id = j.value AND m.workspace = ? AND ${where.sql}`,
      )
      .all(JSON.stringify(ids), workspace, ...where.params) as { id: number }[];
    return new Set(rows.map((row) => row.id));
  }

  private insert(actor: Actor, domain: DomainRow, memory: NewMemory, recordedAt: string): number {
    const validFrom = memory.validFrom ? parseInstant(memory.validFrom, 'valid_from') : recordedAt;
    const info = this.db
      .prepare(
        `INSERT INTO memories (workspace, kind, domain_id, body, body_key, author, source, valid_from, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        actor.workspace,
        memory.kind,
        domain.id,
        memory.body,
        statementKey(memory.body),
        actor.identity,
        memory.source ?? null,
        validFrom,
        recordedAt,
      );
    const id = Number(info.lastInsertRowid);
    this.keywords.add(actor.workspace, id, memory.body);
    return id;
  }

  /** Stores a fact or an observation (anyone may), or a policy (the domain's writers may). */
  propose(actor: Actor, memory: NewMemory): Memory {
    const id = this.db
      .transaction(() => {
        const domain =
          memory.kind === 'policy'
            ? this.requirePolicyWriter(actor, memory.domain)
            : this.ensureDomain(actor, memory.domain);
        return this.insert(actor, domain, memory, this.nowIso());
      })
      .immediate();
    return this.toMemory(this.rowById(actor.workspace, id) as MemoryRow);
  }

  /**
   * Replaces a current fact or policy with a successor: a new row (`body`), or an existing current
   * row of the same kind (`by`). The old row stays, closed at the successor's start and linked to it.
   */
  supersede(
    actor: Actor,
    kind: 'fact' | 'policy',
    ref: string,
    change: { reason: string; body?: string; by?: string; validFrom?: string },
  ): { old: Memory; successor: Memory } {
    const result = this.db
      .transaction(() => {
        const old = this.get(actor.workspace, ref, kind);
        const oldId = parseMemoryRef(ref, kind);
        if (old.status !== 'current') {
          const next = old.supersededBy
            ? `; it was superseded by ${old.supersededBy}, supersede that one`
            : '';
          throw new ToolError(`${old.id} is already ${old.status}${next}.`, 'precondition_failed');
        }
        const domain = this.domainRow(actor.workspace, old.domain) as DomainRow;
        if (kind === 'policy') this.requirePolicyWriter(actor, old.domain);
        const now = this.nowIso();
        let successorId: number;
        if (change.by !== undefined) {
          if (change.validFrom !== undefined) {
            throw new ToolError(
              `valid_from goes with \`statement\` (a new ${kind}): ${change.by} keeps its own, and ${old.id} closes at it.`,
              'bad_arguments',
            );
          }
          successorId = parseMemoryRef(change.by, kind);
          const successor = this.get(actor.workspace, change.by, kind);
          if (successorId === oldId)
            throw new ToolError(`${old.id} cannot supersede itself.`, 'bad_arguments');
          if (successor.status !== 'current') {
            throw new ToolError(
              `${successor.id} is ${successor.status}: name a current ${kind}.`,
              'bad_arguments',
            );
          }
        } else if (change.body !== undefined) {
          successorId = this.insert(
            actor,
            domain,
            {
              kind,
              domain: old.domain,
              body: change.body,
              ...(change.validFrom !== undefined && { validFrom: change.validFrom }),
            },
            now,
          );
        } else {
          throw new ToolError(
            `give the successor: \`statement\` for a new ${kind}, or \`by\` for an existing one.`,
            'bad_arguments',
          );
        }
        const successor = this.rowById(actor.workspace, successorId) as MemoryRow;
        // Validity closes where the successor's begins, never before the old one's own start.
        const closes =
          successor.valid_from.localeCompare(old.validFrom) > 0 ? successor.valid_from : old.validFrom;
        this.db
          .prepare(
            `UPDATE memories SET status = 'superseded', superseded_by = ?, valid_until = ?, change_reason = ?,
               changed_by = ?, changed_at = ? WHERE id = ?`,
          )
          .run(successorId, closes, change.reason, actor.identity, now, oldId);
        return { oldId, successorId };
      })
      .immediate();
    return {
      old: this.toMemory(this.rowById(actor.workspace, result.oldId) as MemoryRow),
      successor: this.toMemory(this.rowById(actor.workspace, result.successorId) as MemoryRow),
    };
  }

  /** Withdraws a policy: inactive from now, kept with its reason for audit. */
  retirePolicy(actor: Actor, ref: string, reason: string): Memory {
    const id = this.db
      .transaction(() => {
        const policy = this.get(actor.workspace, ref, 'policy');
        if (policy.status !== 'current') {
          throw new ToolError(`${policy.id} is already ${policy.status}.`, 'precondition_failed');
        }
        this.requirePolicyWriter(actor, policy.domain);
        const now = this.nowIso();
        const id = parseMemoryRef(ref, 'policy');
        this.db
          .prepare(
            `UPDATE memories SET status = 'retired', valid_until = max(valid_from, ?), change_reason = ?,
               changed_by = ?, changed_at = ? WHERE id = ?`,
          )
          .run(now, reason, actor.identity, now, id);
        return id;
      })
      .immediate();
    return this.toMemory(this.rowById(actor.workspace, id) as MemoryRow);
  }

  /**
   * Rows that pass the filter, newest first, from `offset` (at most `limit`), and their count,
   * read in one transaction so that both come from the same state of the file.
   */
  list(
    workspace: string,
    filter: MemoryFilter,
    window: { offset: number; limit: number },
  ): { total: number; memories: Memory[] } {
    const where = filterSql(filter);
    return this.db.transaction(() => {
      const total = (
        this.db
          .prepare(`SELECT count(*) AS n FROM ${MEMORY_FROM} WHERE m.workspace = ? AND ${where.sql}`)
          .get(workspace, ...where.params) as { n: number }
      ).n;
      const rows = this.db
        .prepare(
          `SELECT ${MEMORY_COLUMNS} FROM ${MEMORY_FROM} WHERE m.workspace = ? AND ${where.sql}
           ORDER BY m.id DESC LIMIT ? OFFSET ?`,
        )
        .all(workspace, ...where.params, window.limit, window.offset) as MemoryRow[];
      return { total, memories: rows.map((row) => this.toMemory(row)) };
    })();
  }

  /**
   * BM25 ranking (best first) of the rows that pass the filter, scores positive, higher better;
   * newest first (scores 0) when every word of the query is common.
   */
  keywordSearch(workspace: string, query: string, filter: MemoryFilter, limit: number): KeywordHits {
    return this.keywords.search(workspace, query, limit, (ids) => this.passing(workspace, ids, filter));
  }

  /** The current fact of the domain that states the same (ignoring case, spacing and end punctuation). */
  findCurrentFact(workspace: string, domain: string, body: string): Memory | undefined {
    const row = this.db
      .prepare(
        `SELECT ${MEMORY_COLUMNS} FROM ${MEMORY_FROM}
         WHERE m.workspace = ? AND d.name = ? AND m.kind = 'fact' AND m.status = 'current' AND m.body_key = ?`,
      )
      .get(workspace, domain, statementKey(body)) as MemoryRow | undefined;
    return row ? this.toMemory(row) : undefined;
  }

  /**
   * Makes a statement noted at `notedAt` a fact, unless a current fact already states it (`alreadyKnown`)
   * or a fact stating it was superseded after it was noted (`outdated`: the note predates the
   * change, so promoting it would bring back what was replaced). The check and the write are one
   * immediate transaction, so two processes consolidating the same hot items at once add it once.
   */
  promoteStatement(
    actor: Actor,
    statement: { domain: string; body: string; source: string; notedAt: string },
  ): { outcome: 'promoted' | 'alreadyKnown' | 'outdated'; fact: Memory } {
    return this.db
      .transaction(() => {
        const known = this.findCurrentFact(actor.workspace, statement.domain, statement.body);
        if (known) return { outcome: 'alreadyKnown' as const, fact: known };
        const replaced = this.db
          .prepare(
            `SELECT ${MEMORY_COLUMNS} FROM ${MEMORY_FROM}
             WHERE m.workspace = ? AND d.name = ? AND m.kind = 'fact' AND m.status = 'superseded'
               AND m.body_key = ? AND m.changed_at >= ?
             ORDER BY m.changed_at DESC LIMIT 1`,
          )
          .get(actor.workspace, statement.domain, statementKey(statement.body), statement.notedAt) as
          | MemoryRow
          | undefined;
        if (replaced) return { outcome: 'outdated' as const, fact: this.toMemory(replaced) };
        const fact = this.propose(actor, {
          kind: 'fact',
          domain: statement.domain,
          body: statement.body,
          source: statement.source,
        });
        return { outcome: 'promoted' as const, fact };
      })
      .immediate();
  }

  // ── notes ──────────────────────────────────────────────────────────────────

  notes(actor: Actor): Notes {
    const row = this.db
      .prepare('SELECT body, revision, updated_at FROM notes WHERE workspace = ? AND identity = ?')
      .get(actor.workspace, actor.identity) as
      | { body: string; revision: number; updated_at: string }
      | undefined;
    return row
      ? { body: row.body, revision: row.revision, updatedAt: row.updated_at }
      : { body: '', revision: 0, updatedAt: null };
  }

  /** Replaces the caller's notes; `baseRevision` must be the revision read (0 before the first write). */
  updateNotes(actor: Actor, body: string, baseRevision: number): Notes {
    return this.db
      .transaction(() => {
        const current = this.notes(actor);
        if (current.revision !== baseRevision) {
          throw new ToolError(
            `your notes are at revision ${current.revision}, not ${baseRevision}: they changed since you read them (another session of ${actor.identity}?). Read them again with get_my_notes, merge, and write with base_revision ${current.revision}.`,
            'precondition_failed',
          );
        }
        const updatedAt = this.nowIso();
        this.db
          .prepare(
            `INSERT INTO notes (workspace, identity, body, revision, updated_at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (workspace, identity) DO UPDATE SET body = excluded.body, revision = excluded.revision,
               updated_at = excluded.updated_at`,
          )
          .run(actor.workspace, actor.identity, body, current.revision + 1, updatedAt);
        return { body, revision: current.revision + 1, updatedAt };
      })
      .immediate();
  }
}

/** What makes two statements "the same": case, runs of spaces and end punctuation do not count. */
export function statementKey(body: string): string {
  return body
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!;\s]+$/, '');
}

/** The WHERE clause (over `m` and `d`) of a filter. */
export function filterSql(filter: MemoryFilter): { sql: string; params: unknown[] } {
  const parts = [`m.kind IN (${filter.kinds.map(() => '?').join(', ') || "''"})`];
  const params: unknown[] = [...filter.kinds];
  if (filter.domain !== undefined) {
    parts.push('d.name = ?');
    params.push(filter.domain);
  }
  if (filter.asOf !== undefined) {
    parts.push('m.valid_from <= ? AND (m.valid_until IS NULL OR m.valid_until > ?)');
    params.push(filter.asOf, filter.asOf);
  } else {
    const statuses = ['current'];
    if (filter.includeSuperseded) statuses.push('superseded');
    if (filter.includeInactive) statuses.push('retired');
    parts.push(`m.status IN (${statuses.map(() => '?').join(', ')})`);
    params.push(...statuses);
  }
  return { sql: parts.join(' AND '), params };
}
