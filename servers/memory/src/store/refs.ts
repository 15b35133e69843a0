import { ToolError } from '@toolmesh/core';
import type { MemoryKind } from './types.js';

const PREFIX: Record<MemoryKind, string> = { fact: 'F', policy: 'P', observation: 'O' };
const KIND_OF: Record<string, MemoryKind> = { F: 'fact', P: 'policy', O: 'observation' };

export function memoryRef(kind: MemoryKind, id: number): string {
  return `${PREFIX[kind]}-${id}`;
}

/** The row id a reference names (`F-12`, `f12`, or `12` for the expected kind). */
export function parseMemoryRef(ref: string, kind: MemoryKind): number {
  const match = /^\s*(?:([FPOfpo])-?)?(\d{1,15})\s*$/.exec(ref);
  const letter = match?.[1]?.toUpperCase();
  if (!match || (letter !== undefined && KIND_OF[letter] !== kind)) {
    throw new ToolError(
      `${JSON.stringify(ref)} is not a ${kind} id: ${kind} ids look like ${PREFIX[kind]}-12.`,
      'bad_reference',
    );
  }
  return Number(match[2]);
}

export function conflictRef(id: number): string {
  return `C-${id}`;
}
