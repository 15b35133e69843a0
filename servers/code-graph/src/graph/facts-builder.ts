import { leadingComment } from './doc-comments.js';
import {
  type CallShape,
  type FileFacts,
  type Receiver,
  type SymbolFact,
  type SymbolKind,
  setFieldType,
} from './facts.js';
import { endLineOf, lineOf, MAX_CHAIN, MAX_NESTING, type SyntaxNode, signatureOf } from './syntax.js';

/** Where a walk is: the symbol that owns what it meets, and what the syntax says of local names. */
export interface BuilderScope {
  owner?: number;
  /** The class whose `this` / `self` is in scope. */
  classIndex?: number;
  /** Qualified-name prefix for declarations here (`bank.Money` inside class Money of namespace bank). */
  prefix: string;
  /** Inside a function body, where declarations are locals, not symbols. */
  inFunction: boolean;
  locals: Map<string, Receiver>;
}

export interface Declaration {
  name: string;
  kind: Exclude<SymbolKind, 'file'>;
  node: SyntaxNode;
  /** Where the doc comment and the first line are looked for (a template or decorator around the node). */
  docNode?: SyntaxNode;
  body: SyntaxNode | null;
  exported: boolean;
  doc?: string;
  signature?: string;
  returns?: string;
  declaration?: boolean;
  memberOf?: string;
  /** The last line, when the symbol runs past its node (a PHP `namespace X;` statement owns what follows it). */
  endLine?: number;
}

/**
 * What the readers of C, C++, Ruby, PHP, Bash and tags-driven trees share: the facts being built,
 * symbols declared under their scope, calls and type uses attributed to their owner, and walks
 * bounded by MAX_NESTING and MAX_CHAIN so generated code cannot overflow the stack.
 */
export class FactsBuilder {
  readonly facts: FileFacts = { symbols: [], imports: [], calls: [], typeUses: [], fields: {} };
  private depth = 0;
  private chain = 0;
  /** Declarations of this file not yet met by their definition, by qualified name. */
  private readonly declared = new Map<string, number[]>();

  /** Runs `work` one level deeper, or not at all below MAX_NESTING. */
  nested(work: () => void): void {
    if (this.depth >= MAX_NESTING) return;
    this.depth++;
    try {
      work();
    } finally {
      this.depth--;
    }
  }

  /** Describes one more link of a call chain (`a().b().c()`); past MAX_CHAIN the receiver is unknown. */
  chained(describe: () => Receiver): Receiver {
    if (this.chain >= MAX_CHAIN) return { kind: 'unknown' };
    this.chain++;
    try {
      return describe();
    } finally {
      this.chain--;
    }
  }

  /**
   * Adds a symbol unless the scope is a function body. A definition that follows its own
   * declaration in the same file (a C prototype, then the function) becomes that one symbol.
   */
  declare(symbol: Declaration, scope: BuilderScope): number | undefined {
    if (!symbol.name || scope.inFunction) return undefined;
    const qualifiedName = scope.prefix ? `${scope.prefix}.${symbol.name}` : symbol.name;
    const docNode = symbol.docNode ?? symbol.node;
    const fact: SymbolFact = {
      name: symbol.name,
      qualifiedName,
      kind: symbol.kind,
      startLine: lineOf(docNode),
      endLine: symbol.endLine ?? endLineOf(symbol.node),
      signature: symbol.signature ?? signatureOf(symbol.node, symbol.body),
      doc: symbol.doc ?? commentAbove(docNode),
      exported: symbol.exported,
    };
    if (scope.owner !== undefined) fact.parent = scope.owner;
    if (symbol.returns) fact.returns = symbol.returns;
    if (symbol.memberOf) fact.memberOf = symbol.memberOf;
    const earlier = symbol.declaration ? undefined : this.declared.get(qualifiedName)?.shift();
    const declared = earlier !== undefined ? this.facts.symbols[earlier] : undefined;
    if (earlier !== undefined && declared) {
      // The definition takes the declaration's place, keeping what only the declaration says:
      // the class an out-of-class definition belongs to, its access, and the doc comment, which
      // C and C++ code most often writes on the declaration. Overloads pair up in order.
      const { memberOf: _outside, ...defined } = fact;
      this.facts.symbols[earlier] = {
        ...defined,
        ...(declared.parent !== undefined && { parent: declared.parent }),
        kind: declared.kind,
        exported: declared.exported,
        doc: fact.doc || declared.doc,
      };
      return earlier;
    }
    this.facts.symbols.push(fact);
    const index = this.facts.symbols.length - 1;
    if (symbol.declaration) {
      fact.declaration = true;
      this.declared.set(qualifiedName, [...(this.declared.get(qualifiedName) ?? []), index]);
    }
    return index;
  }

  /** The scope inside a declared class, namespace or module (or the same prefix when it was not declared). */
  inside(index: number | undefined, scope: BuilderScope, isClass: boolean): BuilderScope {
    if (index === undefined) return { ...scope, locals: new Map(scope.locals) };
    return {
      ...scope,
      owner: index,
      classIndex: isClass ? index : scope.classIndex,
      prefix: this.facts.symbols[index]?.qualifiedName ?? scope.prefix,
      locals: new Map(scope.locals),
    };
  }

  addCall(shape: CallShape, line: number, scope: BuilderScope): void {
    const call = { ...shape, line };
    this.facts.calls.push(scope.owner !== undefined ? { ...call, caller: scope.owner } : call);
  }

  typeUse(
    type: string,
    line: number,
    relation: 'EXTENDS' | 'IMPLEMENTS' | 'REFERENCES',
    scope: BuilderScope,
  ): void {
    if (!type) return;
    const use: FileFacts['typeUses'][number] = { line, type, relation };
    if (scope.owner !== undefined) use.user = scope.owner;
    this.facts.typeUses.push(use);
  }

  setFieldType(classIndex: number | undefined, name: string, type: string | undefined): void {
    if (classIndex === undefined || !type) return;
    setFieldType(this.facts, classIndex, name, type);
  }

  /** The import of a whole file whose names all become visible (`#include`, `require`, `source`). */
  include(specifier: string, line: number): void {
    this.facts.imports.push({ specifier, line, bindings: [], star: true, reexport: true });
  }
}

/**
 * The comment block directly above a declaration. When the declaration opens its parent's body
 * (Ruby puts a class's comment before the `body_statement` of its module), the comment above the
 * body counts.
 */
export function commentAbove(node: SyntaxNode): string {
  const own = leadingComment(node);
  if (own || node.previousNamedSibling || !node.parent) return own;
  return node.parent.startPosition.row === node.startPosition.row ? leadingComment(node.parent) : '';
}

/** A scope for the top of a file. */
export function fileScope(): BuilderScope {
  return { prefix: '', inFunction: false, locals: new Map() };
}
