import { ToolError } from '@toolmesh/core';

/** The relation kinds a caller names, from the point of view of the ticket it acts on. */
export const RELATION_KINDS = [
  'blocked_by',
  'blocking',
  'related_to',
  'duplicate_of',
  'duplicated_by',
  'sub_issue_of',
  'parent_of',
  'discovered_from',
  'led_to',
] as const;
export type RelationKind = (typeof RELATION_KINDS)[number];

/** How an edge is stored: `from` and `to` swap for the inverse kinds, so both sides read one row. */
export type StoredKind = 'blocks' | 'related_to' | 'duplicate_of' | 'discovered_from' | 'parent';

export interface Edge {
  stored: StoredKind;
  /** True when the ticket acted on is the stored edge's `to` end. */
  reversed: boolean;
}

const EDGES: Record<RelationKind, Edge> = {
  blocking: { stored: 'blocks', reversed: false },
  blocked_by: { stored: 'blocks', reversed: true },
  related_to: { stored: 'related_to', reversed: false },
  duplicate_of: { stored: 'duplicate_of', reversed: false },
  duplicated_by: { stored: 'duplicate_of', reversed: true },
  discovered_from: { stored: 'discovered_from', reversed: false },
  led_to: { stored: 'discovered_from', reversed: true },
  // The parent edge runs parent → child, matching tickets.parent_id.
  parent_of: { stored: 'parent', reversed: false },
  sub_issue_of: { stored: 'parent', reversed: true },
};

export function edgeOf(kind: RelationKind): Edge {
  return EDGES[kind];
}

/** The name of a stored edge as seen from one of its ends. */
export function kindSeenFrom(stored: Exclude<StoredKind, 'parent'>, fromSide: boolean): RelationKind {
  switch (stored) {
    case 'blocks':
      return fromSide ? 'blocking' : 'blocked_by';
    case 'related_to':
      return 'related_to';
    case 'duplicate_of':
      return fromSide ? 'duplicate_of' : 'duplicated_by';
    case 'discovered_from':
      return fromSide ? 'discovered_from' : 'led_to';
  }
}

export function parseRelationKind(value: string): RelationKind {
  const key = value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if ((RELATION_KINDS as readonly string[]).includes(key)) return key as RelationKind;
  const alias: Record<string, RelationKind> = {
    blocks: 'blocking',
    depends_on: 'blocked_by',
    relates_to: 'related_to',
    related: 'related_to',
    duplicates: 'duplicate_of',
    child_of: 'sub_issue_of',
    subtask_of: 'sub_issue_of',
  };
  const found = alias[key];
  if (found) return found;
  throw new ToolError(
    `unknown relation "${value}": use one of ${RELATION_KINDS.join(', ')}.`,
    'invalid_relation',
  );
}
