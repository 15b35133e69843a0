export const MEMORY_KINDS = ['fact', 'policy', 'observation'] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/** `current` is in force; `superseded` was replaced by a successor; `retired` (policies) was withdrawn. */
export type MemoryStatus = 'current' | 'superseded' | 'retired';

/** Who acts and where: every store call is confined to one workspace and records its author. */
export interface Actor {
  workspace: string;
  identity: string;
}

export interface Memory {
  /** F-12 for a fact, P-3 for a policy, O-7 for an observation. */
  id: string;
  kind: MemoryKind;
  domain: string;
  body: string;
  author: string;
  /** Where it came from when not written directly, e.g. `hot:H-4` for a consolidated hot item. */
  source: string | null;
  validFrom: string;
  validUntil: string | null;
  recordedAt: string;
  status: MemoryStatus;
  supersededBy: string | null;
  /** The rows this one replaced, oldest first. */
  supersedes: string[];
  /** Why it was superseded or retired, and by whom. */
  change: { reason: string; by: string; at: string } | null;
}

export interface MemoryFilter {
  kinds: readonly MemoryKind[];
  domain?: string;
  /** Also superseded facts (their successors are linked). */
  includeSuperseded?: boolean;
  /** Also retired policies. */
  includeInactive?: boolean;
  /** Only rows valid at this instant (valid_from ≤ asOf < valid_until), whatever their status. */
  asOf?: string;
}

export interface NewMemory {
  kind: MemoryKind;
  domain: string;
  body: string;
  validFrom?: string;
  source?: string;
}

export interface DomainSummary {
  name: string;
  creator: string;
  writers: string[];
  facts: number;
  policies: number;
  observations: number;
  /** Whether the caller may write policies in it. */
  canWritePolicies: boolean;
}

export interface Notes {
  body: string;
  /** 0 before the first write; each write adds one. */
  revision: number;
  updatedAt: string | null;
}

export interface Conflict {
  id: string;
  domain: string;
  older: Memory;
  newer: Memory;
  /** negation, antonym or value: which rule found it. */
  method: string;
  explanation: string;
  /** newer_supersedes_older or keep_both_flagged. */
  suggestion: string;
  status: 'open' | 'resolved';
  resolution: string | null;
  detectedBy: string;
  detectedAt: string;
  resolvedAt: string | null;
}
