import type { EdgeKind } from '../facts.js';
import type { GraphStore, StoredSymbol } from '../graph-store.js';
import { OVERRIDE_RESOLUTION } from '../implementations.js';
import { RESOLUTIONS } from '../resolution.js';
import type { CheckedFile, DeclarationRef, OwnerRef } from './checker-protocol.js';

interface EdgeRow {
  id: number;
  kind: EdgeKind;
  sourceId: number;
  targetId: number | null;
  name: string;
  line: number;
  resolution: string;
}

const CHECKER_CONFIDENCE = RESOLUTIONS.checker;

/**
 * Rewrites a file's CALLS, EXTENDS, IMPLEMENTS and REFERENCES edges with what the checker found.
 * Each checked call is matched to the syntactic edge of the same line and callee name: a target
 * the checker confirms keeps its syntactic tag, a wrong or missing one is replaced (`checker`),
 * a call into code outside the root becomes `external`, and a call the syntactic pass never saw
 * is added. Where the checker knows nothing better, the syntactic edge stands.
 */
export class EdgeUpgrade {
  private readonly statements;

  constructor(private readonly store: GraphStore) {
    const db = store.db;
    this.statements = {
      edgesOfFile: db.prepare(
        `SELECT id, kind, source_id AS sourceId, target_id AS targetId, target_name AS name, line, resolution FROM edges
         WHERE file_id = ? AND kind IN ('CALLS', 'EXTENDS', 'IMPLEMENTS', 'REFERENCES') AND resolution != ? ORDER BY id`,
      ),
      retarget: db.prepare('UPDATE edges SET target_id = ?, resolution = ?, confidence = ? WHERE id = ?'),
      remove: db.prepare('DELETE FROM edges WHERE id = ?'),
    };
  }

  /** Applies checked files whose content is still what the store holds; returns their ids. */
  apply(files: readonly CheckedFile[]): number[] {
    const symbols = new SymbolLookup(this.store);
    const applied: number[] = [];
    for (const file of files) {
      const stored = this.store.fileByPath(file.path);
      // The file changed after the checker read it: a newer run checks it again.
      if (!stored || stored.hash !== file.hash) continue;
      this.upgradeFile(stored.id, file, symbols);
      applied.push(stored.id);
    }
    return applied;
  }

  private upgradeFile(fileId: number, file: CheckedFile, symbols: SymbolLookup): void {
    const fileNode = this.store.fileNodeOf(fileId);
    if (fileNode === undefined) return;
    const owners = new OwnerChain(file.path, file.owners, symbols, fileNode);
    const byKey = new Map<string, EdgeRow[]>();
    const pairs = new Set<string>();
    for (const edge of this.statements.edgesOfFile.all(fileId, OVERRIDE_RESOLUTION) as EdgeRow[]) {
      const key = `${edge.kind}\0${edge.line}\0${edge.name}`;
      byKey.set(key, [...(byKey.get(key) ?? []), edge]);
      if (edge.kind === 'REFERENCES') pairs.add(`${edge.sourceId}:${edge.targetId}`);
    }
    const take = (kind: EdgeKind, line: number, name: string) =>
      byKey.get(`${kind}\0${line}\0${name}`)?.shift();
    const add = (
      kind: EdgeKind,
      sourceId: number,
      targetId: number,
      text: string,
      name: string,
      line: number,
    ) =>
      this.store.addEdge({
        kind,
        sourceId,
        targetId,
        targetText: text,
        targetName: name,
        fileId,
        line,
        resolution: 'checker',
        confidence: CHECKER_CONFIDENCE,
      });

    for (const call of file.calls) {
      const edge = take('CALLS', call.line, call.name);
      const { outcome } = call;
      if (outcome.kind === 'symbols') {
        const ids = [...new Set(outcome.targets.map((target) => symbols.find(target)))].filter(
          (id): id is number => id !== undefined,
        );
        const [first] = ids;
        // Declarations the store does not hold (a file it skips): the syntactic edge stands.
        if (first === undefined) continue;
        const kept =
          edge && edge.targetId !== null && ids.includes(edge.targetId) ? edge.targetId : undefined;
        if (edge && kept === undefined) this.retarget(edge, first, 'checker', CHECKER_CONFIDENCE);
        const sourceId = edge?.sourceId ?? owners.idOf(call.owner);
        const bound = edge ? (kept ?? first) : undefined;
        // A call on a union reaches the method of each member type.
        for (const id of ids) if (id !== bound) add('CALLS', sourceId, id, call.text, call.name, call.line);
      } else if (outcome.kind === 'external') {
        if (edge && (edge.targetId !== null || edge.resolution !== 'external'))
          this.retarget(edge, null, 'external', 0);
      } else if (outcome.kind === 'local') {
        // A parameter or local function: whatever the syntactic pass bound the name to, it is not that.
        if (edge && edge.targetId !== null) this.retarget(edge, null, 'checker', 0);
      }
    }

    for (const use of file.typeUses) {
      const targetId = use.target === 'external' ? null : symbols.find(use.target);
      if (targetId === undefined) continue;
      const edge = take(use.relation, use.line, use.name);
      if (use.relation !== 'REFERENCES') {
        if (targetId === null) {
          if (edge && (edge.targetId !== null || edge.resolution !== 'external'))
            this.retarget(edge, null, 'external', 0);
        } else if (edge) {
          if (edge.targetId !== targetId) this.retarget(edge, targetId, 'checker', CHECKER_CONFIDENCE);
        } else {
          add(use.relation, owners.idOf(use.owner), targetId, use.text, use.name, use.line);
        }
        continue;
      }
      if (targetId === null) continue;
      const sourceId = edge?.sourceId ?? owners.idOf(use.owner);
      const pair = `${sourceId}:${targetId}`;
      if (edge && edge.targetId !== targetId) {
        pairs.delete(`${edge.sourceId}:${edge.targetId}`);
        if (pairs.has(pair) || sourceId === targetId) this.statements.remove.run(edge.id);
        else this.retarget(edge, targetId, 'checker', CHECKER_CONFIDENCE);
        pairs.add(pair);
      } else if (!edge && !pairs.has(pair) && sourceId !== targetId) {
        add('REFERENCES', sourceId, targetId, use.text, use.name, use.line);
        pairs.add(pair);
      }
    }
  }

  private retarget(edge: EdgeRow, targetId: number | null, resolution: string, confidence: number): void {
    this.statements.retarget.run(targetId, resolution, confidence, edge.id);
  }
}

/** Stored symbols by file and qualified name, read once per batch. */
class SymbolLookup {
  private readonly byFile = new Map<string, Map<string, StoredSymbol[]> | undefined>();

  constructor(private readonly store: GraphStore) {}

  find(ref: DeclarationRef): number | undefined {
    let byName = this.byFile.get(ref.path);
    if (!this.byFile.has(ref.path)) {
      const file = this.store.fileByPath(ref.path);
      byName = file ? new Map() : undefined;
      for (const symbol of file ? this.store.symbolsOf(file.id) : []) {
        if (symbol.ordinal < 0) continue;
        byName?.set(symbol.qualifiedName, [...(byName.get(symbol.qualifiedName) ?? []), symbol]);
      }
      this.byFile.set(ref.path, byName);
    }
    const candidates = byName?.get(ref.qualifiedName);
    if (!candidates || candidates.length === 0) return undefined;
    if (candidates.length === 1) return candidates[0]?.id;
    const around = candidates.filter((symbol) => symbol.startLine <= ref.line && ref.line <= symbol.endLine);
    const pool = around.length > 0 ? around : candidates;
    // The innermost of nested candidates (rare: a name reused at two depths) is the declaration.
    return pool.reduce((best, symbol) =>
      symbol.endLine - symbol.startLine < best.endLine - best.startLine ? symbol : best,
    ).id;
  }
}

/** The stored symbol a call or type use sits in: its innermost enclosing declaration the store holds. */
class OwnerChain {
  private readonly ids = new Map<number, number>();

  constructor(
    private readonly path: string,
    private readonly owners: readonly OwnerRef[],
    private readonly symbols: SymbolLookup,
    private readonly fileNode: number,
  ) {}

  idOf(index: number | undefined): number {
    if (index === undefined) return this.fileNode;
    let id = this.ids.get(index);
    if (id === undefined) {
      const owner = this.owners[index];
      const found =
        owner && this.symbols.find({ path: this.path, qualifiedName: owner.qualifiedName, line: owner.line });
      id = found ?? this.idOf(owner?.parent);
      this.ids.set(index, id);
    }
    return id;
  }
}
