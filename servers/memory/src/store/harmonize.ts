import type { ConflictLog } from './conflict-log.js';
import { analyze, contradiction, type Statement } from './contradiction.js';
import type { MemoryStore } from './memory-store.js';
import type { Actor, Conflict, Memory } from './types.js';

/** The most facts of one domain that one pass compares. */
const HARMONIZE_LIMIT = 5000;
/** A subject word shared by more facts than this says nothing about which of them pair up. */
const SUBJECT_BLOCK_LIMIT = 400;

const rowId = (memory: Memory) => Number(memory.id.slice(2));
const compareRecorded = (a: Memory, b: Memory) =>
  a.recordedAt.localeCompare(b.recordedAt) || rowId(a) - rowId(b);

export interface HarmonizePass {
  facts: number;
  pairs: number;
  found: Conflict[];
  resolved: Conflict[];
  open: number;
}

/**
 * Compares the current facts of each domain (or one), pairwise among those sharing a subject
 * word, records each contradiction found with a suggested resolution, and closes recorded ones
 * whose facts were superseded since. With `resolve`, applies "newer supersedes older" as a
 * supersession whose reason names the conflict; nothing is ever deleted.
 */
export function harmonize(
  store: MemoryStore,
  conflicts: ConflictLog,
  actor: Actor,
  options: { domain?: string; resolve: boolean },
): HarmonizePass {
  const { workspace } = actor;
  const resolved: Conflict[] = [];
  const openConflicts = () =>
    conflicts.list(
      workspace,
      { status: 'open', ...(options.domain !== undefined && { domain: options.domain }) },
      { offset: 0, limit: 100_000 },
    ).conflicts;
  for (const conflict of openConflicts()) {
    const gone = [conflict.older, conflict.newer].find((fact) => fact.status !== 'current');
    if (gone) {
      const how = gone.supersededBy
        ? `${gone.id} was superseded by ${gone.supersededBy}${gone.change ? ` (${gone.change.reason})` : ''}`
        : `${gone.id} is ${gone.status}`;
      resolved.push(conflicts.resolve(workspace, conflict.id, how));
    }
  }
  const domains =
    options.domain !== undefined ? [options.domain] : store.listDomains(actor).map((d) => d.name);
  const found: Conflict[] = [];
  let facts = 0;
  let pairs = 0;
  for (const domain of domains) {
    const current = store.list(
      workspace,
      { kinds: ['fact'], domain },
      { offset: 0, limit: HARMONIZE_LIMIT },
    ).memories;
    facts += current.length;
    const statements = current.map((fact) => analyze(fact.body));
    const bySubject = new Map<string, number[]>();
    statements.forEach((statement, index) => {
      for (const word of statement.subject) {
        const list = bySubject.get(word) ?? [];
        list.push(index);
        bySubject.set(word, list);
      }
    });
    const seen = new Set<number>();
    for (const members of bySubject.values()) {
      // A word most facts of the domain share says nothing about which ones pair up.
      if (members.length > SUBJECT_BLOCK_LIMIT) continue;
      for (let x = 0; x < members.length; x++) {
        for (let y = x + 1; y < members.length; y++) {
          const i = members[x] as number;
          const j = members[y] as number;
          const pair = i * current.length + j;
          if (seen.has(pair)) continue;
          seen.add(pair);
          pairs++;
          // Older first, so explanations read in the order the facts were recorded.
          const [older, newer, olderIndex, newerIndex] =
            compareRecorded(current[i] as Memory, current[j] as Memory) <= 0
              ? [current[i] as Memory, current[j] as Memory, i, j]
              : [current[j] as Memory, current[i] as Memory, j, i];
          const why = contradiction(statements[olderIndex] as Statement, statements[newerIndex] as Statement);
          if (!why) continue;
          const recorded = conflicts.record(actor, {
            domain,
            olderId: rowId(older),
            newerId: rowId(newer),
            method: why.method,
            explanation: why.explanation,
            suggestion:
              older.recordedAt === newer.recordedAt ? 'keep_both_flagged' : 'newer_supersedes_older',
          });
          if (recorded) found.push(recorded);
        }
      }
    }
  }
  if (options.resolve) {
    for (const conflict of openConflicts()) {
      if (conflict.suggestion !== 'newer_supersedes_older') continue;
      const older = store.get(workspace, conflict.older.id, 'fact');
      const newer = store.get(workspace, conflict.newer.id, 'fact');
      if (older.status !== 'current' || newer.status !== 'current') continue;
      store.supersede(actor, 'fact', older.id, {
        by: newer.id,
        reason: `harmonize_memory ${conflict.id}: contradicted by the newer ${newer.id} (${conflict.explanation})`,
      });
      resolved.push(
        conflicts.resolve(workspace, conflict.id, `${older.id} superseded by the newer ${newer.id}`),
      );
    }
  }
  return { facts, pairs, found, resolved, open: openConflicts().length };
}
