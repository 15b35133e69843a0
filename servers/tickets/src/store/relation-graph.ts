import { ToolError } from '@toolmesh/core';
import { formatRef } from './refs.js';
import { edgeOf, kindSeenFrom, type RelationKind, type StoredKind } from './relations.js';
import type { Actor } from './store.js';
import { type Row, SELECT, type TicketRows } from './ticket-rows.js';
import type { RelationView } from './types.js';

/** The path from `start` to `goal` following `next`, or null; used to show a refused cycle. */
function path(start: number, goal: number, next: (id: number) => number[]): number[] | null {
  const seen = new Map<number, number | null>([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const id = queue.shift() as number;
    if (id === goal) {
      const chain = [id];
      let back = seen.get(id) ?? null;
      while (back !== null) {
        chain.unshift(back);
        back = seen.get(back) ?? null;
      }
      return chain;
    }
    for (const n of next(id)) {
      if (!seen.has(n)) {
        seen.set(n, id);
        queue.push(n);
      }
    }
  }
  return null;
}

/**
 * The relations between tickets: each edge is stored once and read from both ends under its
 * inverse name, and an edge that would close a parent or blocking cycle is refused.
 */
export class RelationGraph {
  constructor(private readonly rows: TicketRows) {}

  private refs(ids: number[]): string {
    return ids.map((id) => formatRef(this.rows.rowById(id).number)).join(' → ');
  }

  relate(
    actor: Actor,
    ref: string,
    action: 'add' | 'remove',
    kind: RelationKind,
    otherRef: string,
  ): RelationView {
    return this.rows.write(() => {
      const self = this.rows.row(actor.workspace, ref);
      const other = this.rows.row(actor.workspace, otherRef);
      if (self.id === other.id) {
        throw new ToolError(
          `a ticket cannot be related to itself: name another ticket than ${ref}.`,
          'self_relation',
        );
      }
      const edge = edgeOf(kind);
      const [from, to] = edge.reversed ? [other, self] : [self, other];
      if (edge.stored === 'parent') this.relateParent(actor, action, from, to);
      else this.relateEdge(actor, action, edge.stored, from, to, kind, self, other);
      return this.view(this.rows.rowById(self.id));
    });
  }

  private relateParent(actor: Actor, action: 'add' | 'remove', parent: Row, child: Row): void {
    const childRef = formatRef(child.number);
    const parentRef = formatRef(parent.number);
    if (action === 'remove') {
      if (child.parent_id !== parent.id) {
        throw new ToolError(
          `${childRef} is not a sub-issue of ${parentRef}: nothing to remove.`,
          'no_relation',
        );
      }
      this.rows.sql('UPDATE tickets SET parent_id = NULL WHERE id = ?').run(child.id);
    } else {
      const up = (id: number) => {
        const p = this.rows.rowById(id).parent_id;
        return p === null ? [] : [p];
      };
      const cycle = path(parent.id, child.id, up);
      if (cycle) {
        throw new ToolError(
          `refused: making ${childRef} a sub-issue of ${parentRef} would close a parent cycle ${this.refs([child.id, ...cycle])}. Remove a parent link first.`,
          'cycle',
        );
      }
      if (child.parent_id === parent.id) return;
      this.rows.sql('UPDATE tickets SET parent_id = ? WHERE id = ?').run(parent.id, child.id);
    }
    for (const row of [parent, child]) this.rows.touch(row.id);
    this.rows.event(actor, child.id, action === 'add' ? 'relation_added' : 'relation_removed', {
      kind: 'sub_issue_of',
      ticket: parentRef,
      ...(action === 'add' && child.parent_number !== null && { replaced: formatRef(child.parent_number) }),
    });
    this.rows.event(actor, parent.id, action === 'add' ? 'relation_added' : 'relation_removed', {
      kind: 'parent_of',
      ticket: childRef,
    });
  }

  private relateEdge(
    actor: Actor,
    action: 'add' | 'remove',
    stored: Exclude<StoredKind, 'parent'>,
    from: Row,
    to: Row,
    kind: RelationKind,
    self: Row,
    other: Row,
  ): void {
    // related_to has no direction, so either stored orientation counts as the same relation.
    const match =
      stored === 'related_to'
        ? '((from_id = ? AND to_id = ?) OR (from_id = ? AND to_id = ?)) AND kind = ?'
        : 'from_id = ? AND to_id = ? AND kind = ?';
    const params =
      stored === 'related_to' ? [from.id, to.id, to.id, from.id, stored] : [from.id, to.id, stored];
    const exists = this.rows.sql(`SELECT 1 FROM relations WHERE ${match}`).get(...params) !== undefined;
    if (action === 'remove') {
      if (!exists) {
        throw new ToolError(
          `${formatRef(self.number)} has no ${kind} relation to ${formatRef(other.number)}: see them with list_ticket_relations.`,
          'no_relation',
        );
      }
      this.rows.sql(`DELETE FROM relations WHERE ${match}`).run(...params);
    } else {
      if (exists) return;
      if (stored === 'blocks') {
        const blocks = (id: number) =>
          (
            this.rows.sql("SELECT to_id FROM relations WHERE from_id = ? AND kind = 'blocks'").all(id) as {
              to_id: number;
            }[]
          ).map((r) => r.to_id);
        const cycle = path(to.id, from.id, blocks);
        if (cycle) {
          throw new ToolError(
            `refused: ${formatRef(from.number)} blocking ${formatRef(to.number)} would close a blocking cycle ${this.refs([from.id, ...cycle])}. Remove one of those blockers first.`,
            'cycle',
          );
        }
      }
      this.rows
        .sql('INSERT INTO relations (from_id, kind, to_id, created_at) VALUES (?, ?, ?, ?)')
        .run(from.id, stored, to.id, this.rows.stamp());
    }
    const eventKind = action === 'add' ? 'relation_added' : 'relation_removed';
    this.rows.touch(self.id);
    this.rows.touch(other.id);
    this.rows.event(actor, self.id, eventKind, { kind, ticket: formatRef(other.number) });
    this.rows.event(actor, other.id, eventKind, {
      kind: stored === 'related_to' ? 'related_to' : kindSeenFrom(stored, other.id === from.id),
      ticket: formatRef(self.number),
    });
  }

  view(row: Row): RelationView {
    const parent = row.parent_id === null ? null : this.rows.summary(this.rows.rowById(row.parent_id));
    const children = (
      this.rows.sql(`${SELECT} WHERE t.parent_id = ? ORDER BY t.number`).all(row.id) as Row[]
    ).map((r) => this.rows.summary(r));
    const edges = this.rows
      .sql(
        `SELECT from_id, kind, to_id FROM relations WHERE from_id = ? OR to_id = ? ORDER BY created_at, rowid`,
      )
      .all(row.id, row.id) as { from_id: number; kind: Exclude<StoredKind, 'parent'>; to_id: number }[];
    const view: RelationView = {
      ticket: formatRef(row.number),
      parent,
      children,
      blockedBy: [],
      blocking: [],
      other: [],
    };
    for (const edge of edges) {
      const fromSide = edge.from_id === row.id;
      const otherRow = this.rows.rowById(fromSide ? edge.to_id : edge.from_id);
      const kind = kindSeenFrom(edge.kind, fromSide);
      const summary = this.rows.summary(otherRow);
      if (kind === 'blocking') view.blocking.push(summary);
      else if (kind === 'blocked_by') view.blockedBy.push(summary);
      else view.other.push({ kind, ticket: summary });
    }
    return view;
  }
}
