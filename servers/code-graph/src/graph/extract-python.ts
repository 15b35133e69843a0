import { cleanComment, leadingComment } from './doc-comments.js';
import {
  type CallShape,
  type FileFacts,
  type ImportFact,
  type Receiver,
  type SymbolFact,
  type SymbolKind,
  setFieldType,
} from './facts.js';
import {
  endLineOf,
  lineOf,
  MAX_CHAIN,
  MAX_NESTING,
  type SyntaxNode,
  type SyntaxTree,
  signatureOf,
} from './syntax.js';
import { namedType } from './type-names.js';

interface Scope {
  owner?: number;
  classIndex?: number;
  prefix: string;
  inFunction: boolean;
  /** The name the first parameter of a method goes by (`self`, `cls`). */
  selfName?: string;
  locals: Map<string, Receiver>;
}

const ENUM_BASES = new Set(['Enum', 'IntEnum', 'StrEnum', 'Flag', 'IntFlag', 'enum.Enum']);
const INTERFACE_BASES = new Set(['Protocol', 'typing.Protocol']);

export function extractPython(tree: SyntaxTree): FileFacts {
  return new PythonReader().read(tree.rootNode);
}

class PythonReader {
  private readonly facts: FileFacts = { symbols: [], imports: [], calls: [], typeUses: [], fields: {} };

  read(root: SyntaxNode): FileFacts {
    this.visitChildren(root, { prefix: '', inFunction: false, locals: new Map() });
    return this.facts;
  }

  private visitChildren(node: SyntaxNode, scope: Scope): void {
    for (const child of node.namedChildren) this.visit(child, scope);
  }

  private depth = 0;
  private chain = 0;

  /** Stops below MAX_NESTING, as the ECMAScript reader does, so deep generated code cannot overflow the stack. */
  private visit(node: SyntaxNode, scope: Scope, docNode: SyntaxNode = node): void {
    if (this.depth >= MAX_NESTING) return;
    this.depth++;
    try {
      this.visitNode(node, scope, docNode);
    } finally {
      this.depth--;
    }
  }

  private visitNode(node: SyntaxNode, scope: Scope, docNode: SyntaxNode): void {
    switch (node.type) {
      case 'comment':
        return;
      case 'decorated_definition': {
        for (const decorator of node.namedChildren)
          if (decorator.type === 'decorator') this.visit(decorator, scope);
        const definition = node.childForFieldName('definition');
        if (definition) this.visit(definition, scope, node);
        return;
      }
      case 'class_definition':
        this.readClass(node, docNode, scope);
        return;
      case 'function_definition':
        this.readFunction(node, docNode, scope);
        return;
      case 'import_statement':
        this.readImport(node);
        return;
      case 'import_from_statement':
        this.readImportFrom(node);
        return;
      case 'assignment':
        this.readAssignment(node, scope);
        return;
      case 'call':
        this.readCall(node, scope);
        return;
      case 'type':
        this.visitTypes(node, scope);
        return;
      default:
        this.visitChildren(node, scope);
    }
  }

  private declare(
    node: SyntaxNode,
    docNode: SyntaxNode,
    kind: Exclude<SymbolKind, 'file'>,
    scope: Scope,
    name: string | undefined,
    body: SyntaxNode | null,
  ): number | undefined {
    if (!name || scope.inFunction) return undefined;
    const parent = scope.owner !== undefined ? this.facts.symbols[scope.owner] : undefined;
    const symbol: SymbolFact = {
      name,
      qualifiedName: scope.prefix ? `${scope.prefix}.${name}` : name,
      kind,
      startLine: lineOf(docNode),
      endLine: endLineOf(node),
      signature: signatureOf(node, body),
      doc: docstring(body) || leadingComment(docNode),
      exported: isPublic(name) && (parent?.exported ?? true),
    };
    if (scope.owner !== undefined) symbol.parent = scope.owner;
    const returns = namedType(node.childForFieldName('return_type'));
    if (returns) symbol.returns = returns;
    this.facts.symbols.push(symbol);
    return this.facts.symbols.length - 1;
  }

  private readClass(node: SyntaxNode, docNode: SyntaxNode, scope: Scope): void {
    const body = node.childForFieldName('body');
    const bases = node.childForFieldName('superclasses')?.namedChildren ?? [];
    const baseNames = bases.filter((base) => base.type !== 'keyword_argument').map((base) => base.text);
    const kind = baseNames.some((base) => ENUM_BASES.has(base))
      ? 'enum'
      : baseNames.some((base) => INTERFACE_BASES.has(base))
        ? 'interface'
        : 'class';
    const index = this.declare(node, docNode, kind, scope, node.childForFieldName('name')?.text, body);
    const inner: Scope = {
      ...scope,
      owner: index ?? scope.owner,
      classIndex: index ?? scope.classIndex,
      prefix: index !== undefined ? (this.facts.symbols[index]?.qualifiedName ?? '') : scope.prefix,
      locals: new Map(scope.locals),
    };
    for (const base of bases) {
      if (base.type === 'identifier' || base.type === 'attribute') {
        this.typeUse(base.text, lineOf(base), 'EXTENDS', inner);
      } else {
        this.visit(base, inner);
      }
    }
    if (body) this.visitChildren(body, inner);
  }

  private readFunction(node: SyntaxNode, docNode: SyntaxNode, scope: Scope): void {
    const inClass = scope.classIndex !== undefined && scope.owner === scope.classIndex && !scope.inFunction;
    const body = node.childForFieldName('body');
    const index = this.declare(
      node,
      docNode,
      inClass ? 'method' : 'function',
      scope,
      node.childForFieldName('name')?.text,
      body,
    );
    const inner: Scope = {
      ...scope,
      owner: index ?? scope.owner,
      inFunction: true,
      locals: new Map(scope.locals),
    };
    const parameters = node.childForFieldName('parameters')?.namedChildren ?? [];
    parameters.forEach((parameter, position) => {
      const name =
        parameter.type === 'identifier'
          ? parameter.text
          : (parameter.childForFieldName('name') ?? parameter.namedChild(0))?.text;
      if (inClass && position === 0 && name) {
        inner.selfName = name;
        return;
      }
      const annotation = parameter.childForFieldName('type');
      const type = namedType(annotation);
      if (name && type) inner.locals.set(name, { kind: 'typed', type });
      if (annotation) this.visitTypes(annotation, inner);
      const defaultValue = parameter.childForFieldName('value');
      if (defaultValue) this.visit(defaultValue, inner);
    });
    if (!inClass) inner.selfName = scope.selfName;
    const returnType = node.childForFieldName('return_type');
    if (returnType) this.visitTypes(returnType, inner);
    if (body) this.visitChildren(body, inner);
  }

  private readImport(node: SyntaxNode): void {
    for (const name of node.childrenForFieldName('name')) {
      const dotted = name.type === 'aliased_import' ? name.childForFieldName('name') : name;
      const alias = name.type === 'aliased_import' ? name.childForFieldName('alias')?.text : undefined;
      if (!dotted) continue;
      this.facts.imports.push({
        specifier: dotted.text,
        line: lineOf(node),
        bindings: [{ local: alias ?? dotted.text }],
      });
    }
  }

  private readImportFrom(node: SyntaxNode): void {
    const module = node.childForFieldName('module_name');
    if (!module) return;
    const fact: ImportFact = { specifier: module.text, line: lineOf(node), bindings: [] };
    if (node.namedChildren.some((child) => child.type === 'wildcard_import')) fact.star = true;
    for (const name of node.childrenForFieldName('name')) {
      const dotted = name.type === 'aliased_import' ? name.childForFieldName('name') : name;
      const alias = name.type === 'aliased_import' ? name.childForFieldName('alias')?.text : undefined;
      if (dotted) fact.bindings.push({ imported: dotted.text, local: alias ?? dotted.text });
    }
    this.facts.imports.push(fact);
  }

  private readAssignment(node: SyntaxNode, scope: Scope): void {
    const left = node.childForFieldName('left');
    const right = node.childForFieldName('right');
    const annotation = node.childForFieldName('type');
    const type = namedType(annotation) ?? constructedType(right, scope);
    const known: Receiver | undefined = type
      ? { kind: 'typed', type }
      : right?.type === 'identifier'
        ? scope.locals.get(right.text)
        : right?.type === 'call'
          ? this.resultOf(right, scope)
          : undefined;
    if (annotation) this.visitTypes(annotation, scope);
    if (left?.type === 'identifier' && known && scope.inFunction) scope.locals.set(left.text, known);
    const field = left && selfField(left, scope);
    // A field's type is kept only when the syntax names it: it must hold in every method.
    if (field && known?.kind === 'typed' && scope.classIndex !== undefined) {
      setFieldType(this.facts, scope.classIndex, field, known.type);
    }
    let owner = scope.owner;
    if (left?.type === 'identifier' && !scope.inFunction && scope.classIndex === undefined) {
      const name = left.text;
      const kind = /^[A-Z][A-Z0-9_]*$/.test(name) ? 'constant' : 'variable';
      owner = this.declare(node, node.parent ?? node, kind, scope, name, null) ?? owner;
    }
    if (right) this.visit(right, { ...scope, owner });
  }

  private readCall(node: SyntaxNode, scope: Scope): void {
    const callee = node.childForFieldName('function');
    const shape = this.shapeOf(node, scope);
    if (shape) {
      const call = { ...shape, line: lineOf(node) };
      this.facts.calls.push(scope.owner !== undefined ? { ...call, caller: scope.owner } : call);
    }
    if (callee?.type === 'attribute') {
      const object = callee.childForFieldName('object');
      if (object && !/^[\w.]+$/.test(object.text)) this.visit(object, scope);
    } else if (callee && callee.type !== 'identifier') {
      this.visit(callee, scope);
    }
    const args = node.childForFieldName('arguments');
    if (args) this.visit(args, scope);
  }

  private shapeOf(node: SyntaxNode, scope: Scope): CallShape | undefined {
    const callee = node.childForFieldName('function');
    if (callee?.type === 'identifier') return { callee: callee.text };
    if (callee?.type !== 'attribute') return undefined;
    const object = callee.childForFieldName('object');
    const attribute = callee.childForFieldName('attribute');
    return object && attribute
      ? { callee: attribute.text, receiver: this.receiverOf(object, scope) }
      : undefined;
  }

  private resultOf(value: SyntaxNode, scope: Scope): Receiver | undefined {
    const call = this.shapeOf(value, scope);
    return call ? { kind: 'result', call } : undefined;
  }

  private receiverOf(object: SyntaxNode, scope: Scope): Receiver {
    // A chain `a().b().c()…` is described to a depth; a longer one ends in an unknown receiver.
    if (this.chain >= MAX_CHAIN) return { kind: 'unknown' };
    this.chain++;
    try {
      return this.describeReceiver(object, scope);
    } finally {
      this.chain--;
    }
  }

  private describeReceiver(object: SyntaxNode, scope: Scope): Receiver {
    if (object.type === 'identifier') {
      if (scope.selfName && object.text === scope.selfName) return { kind: 'self' };
      return scope.locals.get(object.text) ?? { kind: 'name', name: object.text };
    }
    if (object.type === 'call' && object.childForFieldName('function')?.text === 'super')
      return { kind: 'super' };
    const field = selfField(object, scope);
    if (field) return { kind: 'field', name: field };
    if (object.type === 'call') return this.resultOf(object, scope) ?? { kind: 'unknown' };
    // `pkg.models.make()`: a dotted name, most often a module imported whole.
    if (object.type === 'attribute' && /^[\w.]+$/.test(object.text))
      return { kind: 'name', name: object.text };
    return { kind: 'unknown' };
  }

  private typeUse(type: string, line: number, relation: 'EXTENDS' | 'REFERENCES', scope: Scope): void {
    const fact: FileFacts['typeUses'][number] = { line, type, relation };
    if (scope.owner !== undefined) fact.user = scope.owner;
    this.facts.typeUses.push(fact);
  }

  private visitTypes(node: SyntaxNode, scope: Scope): void {
    if (this.depth >= MAX_NESTING) return;
    this.depth++;
    try {
      this.readTypes(node, scope);
    } finally {
      this.depth--;
    }
  }

  private readTypes(node: SyntaxNode, scope: Scope): void {
    if (node.type === 'identifier' || node.type === 'attribute') {
      this.typeUse(node.text, lineOf(node), 'REFERENCES', scope);
      return;
    }
    const forward = node.type === 'string' ? namedType(node) : undefined;
    if (forward) {
      this.typeUse(forward, lineOf(node), 'REFERENCES', scope);
      return;
    }
    for (const child of node.namedChildren) this.visitTypes(child, scope);
  }
}

function isPublic(name: string): boolean {
  return !name.startsWith('_') || (name.startsWith('__') && name.endsWith('__'));
}

/** The docstring: a string as the first statement of a body. */
function docstring(body: SyntaxNode | null): string {
  const first = body?.namedChild(0);
  if (first?.type !== 'expression_statement') return '';
  const value = first.namedChild(0);
  if (value?.type !== 'string') return '';
  return cleanComment(value.text.replace(/^[rRbBuU]*("""|'''|"|')/, '').replace(/("""|'''|"|')$/, '')).slice(
    0,
    1000,
  );
}

/** `self.rates` → `rates`, for the method's own first parameter. */
function selfField(node: SyntaxNode, scope: Scope): string | undefined {
  if (node.type !== 'attribute' || !scope.selfName) return undefined;
  if (node.childForFieldName('object')?.text !== scope.selfName) return undefined;
  return node.childForFieldName('attribute')?.text;
}

/**
 * `Money(…)` assigned to a name makes a Money. Python has no `new`, so a call counts as
 * construction when its callee is capitalised (PEP 8 class naming); the resolver still has to
 * find a class of that name before a call through it resolves.
 */
function constructedType(value: SyntaxNode | null, scope: Scope): string | undefined {
  if (value?.type !== 'call') return undefined;
  const callee = value.childForFieldName('function');
  if (!callee || !/^([a-z_][\w]*\.)*[A-Z]\w*$/.test(callee.text)) return undefined;
  return scope.locals.has(callee.text) ? undefined : callee.text;
}
