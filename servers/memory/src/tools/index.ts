import type { AnyToolDefinition } from '@toolmesh/core';
import type { MemoryEngine } from '../engine.js';
import { listMemoryDomains } from './domains.js';
import { proposeFact, supersedeFact } from './facts.js';
import { consolidateMemory, harmonizeMemory, listMemoryConflicts } from './maintenance.js';
import { listPolicies, proposePolicy, supersedePolicy } from './policies.js';
import { searchMemory } from './search.js';
import { getMyNotes, recordObservation, remember, updateMyNotes } from './working.js';

export const MEMORY_TOOLS: readonly AnyToolDefinition<MemoryEngine>[] = [
  searchMemory,
  proposeFact,
  supersedeFact,
  proposePolicy,
  supersedePolicy,
  listPolicies,
  listMemoryDomains,
  recordObservation,
  getMyNotes,
  updateMyNotes,
  remember,
  consolidateMemory,
  harmonizeMemory,
  listMemoryConflicts,
];
