import path from 'node:path';
import ts from 'typescript';
import type { CallOutcome, DeclarationRef } from './checker-protocol.js';
import { isLocal, storedNameOf } from './declaration-names.js';
import { lineOfNode } from './line-numbers.js';

/**
 * Where a declaration the checker found lives, from the store's point of view: a symbol it may
 * hold (`ref`), code outside the root, a value local to a function, or something else at module
 * level that the extractor keeps no symbol for.
 */
export type Verdict = { ref: DeclarationRef } | 'external' | 'local' | 'other';

/** Classifies declarations, each once: the same few (Array#map, a base class) recur thousands of times. */
export class DeclarationVerdicts {
  private readonly verdicts = new WeakMap<ts.Node, Verdict>();

  constructor(private readonly root: string) {}

  of(declaration: ts.Node): Verdict {
    let verdict = this.verdicts.get(declaration);
    if (!verdict) {
      verdict = this.classify(declaration);
      this.verdicts.set(declaration, verdict);
    }
    return verdict;
  }

  private classify(declaration: ts.Node): Verdict {
    const relative = path.relative(this.root, declaration.getSourceFile().fileName).split(path.sep).join('/');
    if (
      relative.startsWith('../') ||
      path.isAbsolute(relative) ||
      relative.split('/').includes('node_modules')
    )
      return 'external';
    const qualifiedName = storedNameOf(declaration);
    if (qualifiedName !== undefined) {
      const name = ts.getNameOfDeclaration(declaration as ts.Declaration) ?? declaration;
      return { ref: { path: relative, qualifiedName, line: lineOfNode(name) } };
    }
    return isLocal(declaration) ? 'local' : 'other';
  }

  /** What a set of declarations (a symbol's, or one signature's) says a call reaches. */
  outcome(declarations: readonly ts.Node[]): CallOutcome {
    const targets = new Map<string, DeclarationRef>();
    let external = false;
    let local = false;
    let other = false;
    for (const declaration of declarations) {
      const verdict = this.of(declaration);
      if (verdict === 'external') external = true;
      else if (verdict === 'local') local = true;
      else if (verdict === 'other') other = true;
      else targets.set(`${verdict.ref.path}\0${verdict.ref.qualifiedName}\0${verdict.ref.line}`, verdict.ref);
    }
    if (targets.size > 0) return { kind: 'symbols', targets: [...targets.values()] };
    if (other || declarations.length === 0) return { kind: 'unknown' };
    if (local) return { kind: 'local' };
    return external ? { kind: 'external' } : { kind: 'unknown' };
  }
}
