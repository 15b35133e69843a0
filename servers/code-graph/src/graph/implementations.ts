import type { GraphStore } from './graph-store.js';

/**
 * The resolution of a method-level IMPLEMENTS edge, which tells it from the class-level ones
 * the resolver writes: the source method overrides or implements the target, a method of the
 * same name in a class or interface the source's class extends or implements.
 */
export const OVERRIDE_RESOLUTION = 'override';

/** Deeper than any real hierarchy; it only stops a cycle of bad EXTENDS edges. */
const MAX_ANCESTRY = 16;

interface Member {
  id: number;
  parent_id: number;
  name: string;
  qualified_name: string;
  file_id: number;
  start_line: number;
}

interface Base {
  base: number;
  confidence: number;
}

/**
 * Brings the method-level IMPLEMENTS edges in line with the class-level EXTENDS and IMPLEMENTS
 * edges: each method of a class gets an edge to the nearest method of the same name up every
 * path of its bases (`AuditedRepository.save` → `MemoryRepository.save` → `Repository.save`),
 * so a call to an interface method can be followed to the code that runs. Derived from the
 * resolved graph alone, so it works alike for every language. Recomputed for the whole graph
 * after each batch, since a method added to a base in one file changes the edges of classes in
 * others; only the edges that changed are written. Returns the files whose edges changed.
 */
export function linkImplementations(store: GraphStore): Set<number> {
  const db = store.db;
  const bases = new Map<number, Base[]>();
  const classEdges = db
    .prepare(
      `SELECT e.source_id AS sub, e.target_id AS base, e.confidence FROM edges e
       JOIN symbols s ON s.id = e.source_id JOIN symbols t ON t.id = e.target_id
       WHERE e.target_id > 0 AND e.kind IN ('EXTENDS', 'IMPLEMENTS') AND e.resolution != ? AND e.source_id != e.target_id
         AND s.kind IN ('class', 'interface', 'struct', 'enum', 'type') AND t.kind IN ('class', 'interface', 'struct', 'enum', 'type')`,
    )
    .all(OVERRIDE_RESOLUTION) as { sub: number; base: number; confidence: number }[];
  for (const edge of classEdges) {
    const list = bases.get(edge.sub) ?? [];
    list.push({ base: edge.base, confidence: edge.confidence });
    bases.set(edge.sub, list);
  }
  const owners = new Set<number>(classEdges.flatMap((edge) => [edge.sub, edge.base]));
  const members = new Map<number, Map<string, Member>>();
  const rows = db
    .prepare(
      `SELECT id, parent_id, name, qualified_name, file_id, start_line FROM symbols
       WHERE kind = 'method' AND parent_id IN (SELECT value FROM json_each(?)) ORDER BY id`,
    )
    .all(JSON.stringify([...owners])) as Member[];
  for (const member of rows) {
    const byName = members.get(member.parent_id) ?? new Map<string, Member>();
    if (!byName.has(member.name)) byName.set(member.name, member);
    members.set(member.parent_id, byName);
  }

  const wanted = new Map<string, { method: Member; base: Member; confidence: number }>();
  const findUp = (method: Member, owner: number, confidence: number, depth: number): void => {
    if (depth > MAX_ANCESTRY) return;
    for (const { base, confidence: step } of bases.get(owner) ?? []) {
      const reached = Math.min(confidence, step);
      const overridden = members.get(base)?.get(method.name);
      if (overridden)
        wanted.set(`${method.id}:${overridden.id}`, { method, base: overridden, confidence: reached });
      else findUp(method, base, reached, depth + 1);
    }
  };
  for (const owner of bases.keys()) {
    for (const method of members.get(owner)?.values() ?? []) findUp(method, owner, 1, 0);
  }

  const existing = db
    .prepare(
      `SELECT id, source_id, target_id, confidence, file_id FROM edges
       WHERE (target_id > 0 OR target_id IS NULL) AND kind = 'IMPLEMENTS' AND resolution = ?`,
    )
    .all(OVERRIDE_RESOLUTION) as {
    id: number;
    source_id: number;
    target_id: number | null;
    confidence: number;
    file_id: number;
  }[];
  const changedFiles = new Set<number>();
  const drop = db.prepare('DELETE FROM edges WHERE id = ?');
  for (const edge of existing) {
    const key = `${edge.source_id}:${edge.target_id}`;
    if (wanted.get(key)?.confidence === edge.confidence) wanted.delete(key);
    else {
      drop.run(edge.id);
      changedFiles.add(edge.file_id);
    }
  }
  for (const { method, base, confidence } of wanted.values()) {
    store.addEdge({
      kind: 'IMPLEMENTS',
      sourceId: method.id,
      targetId: base.id,
      targetText: base.qualified_name,
      targetName: base.name,
      fileId: method.file_id,
      line: method.start_line,
      resolution: OVERRIDE_RESOLUTION,
      confidence,
    });
    changedFiles.add(method.file_id);
  }
  return changedFiles;
}
