import ts from 'typescript';
import { type CallNode, CallTargets, skipWrappers } from './call-targets.js';
import type { CheckedCall, CheckedFile, CheckedTypeUse, OwnerRef } from './checker-protocol.js';
import { storedNameOf } from './declaration-names.js';
import { DeclarationVerdicts } from './declaration-verdicts.js';
import { lineOfNode } from './line-numbers.js';

/** JSDoc comments hang off the nodes they document; the compiler's walk does not visit them. */
interface WithJsDoc {
  jsDoc?: ts.Node[];
}

/**
 * Reads one source file with a program's checker: every call and `new` with what it reaches,
 * the classes and interfaces each class or interface extends and implements, and the types
 * used (in JavaScript also those named in JSDoc), each with the declaration it sits in.
 */
export class FileChecker {
  private readonly verdicts: DeclarationVerdicts;
  private readonly targets: CallTargets;

  constructor(
    root: string,
    private readonly checker: ts.TypeChecker,
    storedNames: ReadonlySet<string>,
  ) {
    this.verdicts = new DeclarationVerdicts(root);
    this.targets = new CallTargets(checker, this.verdicts, storedNames);
  }

  check(file: ts.SourceFile, path: string, hash: string): CheckedFile {
    return new FileWalk(this.checker, this.verdicts, this.targets, file).read(path, hash);
  }
}

class FileWalk {
  private readonly owners: OwnerRef[] = [];
  private readonly calls: CheckedCall[] = [];
  private readonly typeUses: CheckedTypeUse[] = [];
  /** REFERENCES are kept once per user and type, as the syntactic pass keeps them. */
  private readonly referenced = new Set<string>();
  private readonly javascript: boolean;

  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly verdicts: DeclarationVerdicts,
    private readonly targets: CallTargets,
    private readonly file: ts.SourceFile,
  ) {
    this.javascript = /\.[cm]?jsx?$/.test(file.fileName);
  }

  read(path: string, hash: string): CheckedFile {
    this.visit(this.file, undefined);
    return { path, hash, owners: this.owners, calls: this.calls, typeUses: this.typeUses };
  }

  private visit(node: ts.Node, owner: number | undefined): void {
    let current = owner;
    const qualifiedName = storedNameOf(node);
    if (qualifiedName !== undefined) {
      const name = ts.getNameOfDeclaration(node as ts.Declaration) ?? node;
      const entry: OwnerRef = { qualifiedName, line: lineOfNode(name) };
      if (owner !== undefined) entry.parent = owner;
      current = this.owners.push(entry) - 1;
    }
    if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node)) {
      this.readCall(node, current);
    } else if (ts.isHeritageClause(node)) {
      this.readHeritage(node, current);
    } else if (ts.isTypeReferenceNode(node)) {
      this.readTypeName(node.typeName, current);
    } else if (ts.isImportTypeNode(node) && node.qualifier) {
      this.readTypeName(node.qualifier, current);
    }
    if (this.javascript) {
      for (const doc of (node as WithJsDoc).jsDoc ?? []) this.visit(doc, current);
    }
    ts.forEachChild(node, (child) => this.visit(child, current));
  }

  private readCall(call: CallNode, owner: number | undefined): void {
    const target = this.targets.of(call);
    if (!target) return;
    const fact: CheckedCall = { line: lineOfNode(call), ...target };
    if (owner !== undefined) fact.owner = owner;
    this.calls.push(fact);
  }

  private readHeritage(clause: ts.HeritageClause, owner: number | undefined): void {
    const relation = clause.token === ts.SyntaxKind.ExtendsKeyword ? 'EXTENDS' : 'IMPLEMENTS';
    for (const type of clause.types) {
      const expression = skipWrappers(type.expression);
      const nameNode = ts.isPropertyAccessExpression(expression)
        ? expression.name
        : ts.isIdentifier(expression)
          ? expression
          : undefined;
      if (!nameNode) continue;
      const symbol = this.targets.symbolAt(nameNode);
      const outcome = this.verdicts.outcome(symbol?.declarations ?? []);
      const target =
        outcome.kind === 'symbols'
          ? outcome.targets[0]
          : outcome.kind === 'external'
            ? 'external'
            : undefined;
      if (target) this.addTypeUse(relation, type, nameNode.text, expression.getText(), owner, target);
    }
  }

  private readTypeName(name: ts.EntityName, owner: number | undefined): void {
    const last = ts.isQualifiedName(name) ? name.right : name;
    let symbol = this.targets.symbolAt(last);
    // A JSDoc `@typedef {import('./money').Money} Money` stands for the type it names.
    if (symbol?.declarations?.every((declaration) => ts.isJSDocTypedefTag(declaration))) {
      symbol = this.checker.getDeclaredTypeOfSymbol(symbol).getSymbol() ?? symbol;
    }
    const outcome = this.verdicts.outcome(symbol?.declarations ?? []);
    if (outcome.kind !== 'symbols') return;
    const target = outcome.targets[0];
    if (!target) return;
    const key = `${owner}\0${target.path}\0${target.qualifiedName}`;
    if (this.referenced.has(key)) return;
    this.referenced.add(key);
    this.addTypeUse('REFERENCES', name, last.text, name.getText(), owner, target);
  }

  private addTypeUse(
    relation: CheckedTypeUse['relation'],
    node: ts.Node,
    name: string,
    text: string,
    owner: number | undefined,
    target: CheckedTypeUse['target'],
  ): void {
    const use: CheckedTypeUse = { relation, line: lineOfNode(node), name, text, target };
    if (owner !== undefined) use.owner = owner;
    this.typeUses.push(use);
  }
}
