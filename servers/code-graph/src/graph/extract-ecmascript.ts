import { leadingComment } from './doc-comments.js';
import {
  importFact,
  reexportFact,
  requireBindings,
  requiredModule,
  stringValue,
} from './ecmascript-modules.js';
import {
  CLASS_NODES,
  constructedType,
  FUNCTION_VALUES,
  isParameterProperty,
  isPrivate,
  LEAVES,
  thisField,
} from './ecmascript-nodes.js';
import {
  type CallShape,
  type FileFacts,
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

/** Where the walk is: the symbol that owns what it meets, and the local names whose type is known. */
interface Scope {
  owner?: number;
  /** The class whose `this` is in scope. */
  classIndex?: number;
  /** Qualified-name prefix for declarations here (`Money` inside class Money). */
  prefix: string;
  /** Set when inside a function body, where declarations are locals, not symbols. */
  inFunction: boolean;
  exported: boolean;
  /** What the syntax says about each local name: its type, or the call whose result it holds. */
  locals: Map<string, Receiver>;
}

/** Reads TypeScript, TSX and JavaScript trees; the grammars share these node types. */
export function extractEcmascript(tree: SyntaxTree): FileFacts {
  return new EcmascriptReader().read(tree.rootNode);
}

class EcmascriptReader {
  private readonly facts: FileFacts = { symbols: [], imports: [], calls: [], typeUses: [], fields: {} };
  /** Names listed in `export { a, b }` or `export default a`. */
  private readonly exportedNames = new Set<string>();

  read(root: SyntaxNode): FileFacts {
    const top: Scope = { prefix: '', inFunction: false, exported: false, locals: new Map() };
    this.visitChildren(root, top);
    for (const symbol of this.facts.symbols) {
      if (symbol.parent === undefined && this.exportedNames.has(symbol.name)) symbol.exported = true;
    }
    return this.facts;
  }

  private visitChildren(node: SyntaxNode, scope: Scope): void {
    for (const child of node.namedChildren) this.visit(child, scope);
  }

  private depth = 0;
  private chain = 0;

  /**
   * Generated code can nest thousands deep (a 5,000-level array literal); below MAX_NESTING the
   * walk stops, so such a file keeps what was read above that depth instead of overflowing the stack.
   */
  private visit(node: SyntaxNode, scope: Scope): void {
    if (this.depth >= MAX_NESTING) return;
    this.depth++;
    try {
      this.visitNode(node, scope);
    } finally {
      this.depth--;
    }
  }

  private visitNode(node: SyntaxNode, scope: Scope): void {
    // Each read of `type` is a call into the WASM parser: read once.
    const type = node.type;
    if (LEAVES.has(type)) return;
    switch (type) {
      case 'export_statement':
        this.readExport(node, scope);
        return;
      case 'import_statement': {
        const fact = importFact(node);
        if (fact) this.facts.imports.push(fact);
        return;
      }
      case 'class_declaration':
      case 'abstract_class_declaration':
        this.readClass(node, node, scope);
        return;
      case 'interface_declaration':
        this.readInterface(node, node, scope);
        return;
      case 'enum_declaration':
        this.declare(node, node, 'enum', scope, node.childForFieldName('body'));
        return;
      case 'type_alias_declaration': {
        const index = this.declare(node, node, 'type', scope, null);
        this.visitTypes(node.childForFieldName('value'), { ...scope, owner: index ?? scope.owner });
        return;
      }
      case 'internal_module':
      case 'module':
        this.readNamespace(node, node, scope);
        return;
      case 'function_declaration':
      case 'generator_function_declaration':
      case 'function_signature':
        this.readFunction(node, node, scope);
        return;
      case 'lexical_declaration':
      case 'variable_declaration':
        this.readVariables(node, node, scope);
        return;
      case 'call_expression':
        this.readCall(node, scope);
        return;
      case 'new_expression':
        this.readNew(node, scope);
        return;
      case 'type_annotation':
      case 'type_arguments':
      case 'implements_clause':
        this.visitTypes(node, scope);
        return;
      default:
        if (FUNCTION_VALUES.has(type)) {
          this.readFunctionBody(node, scope);
          return;
        }
        if (type === 'class') {
          this.readClass(node, node, scope);
          return;
        }
        this.visitChildren(node, scope);
    }
  }

  /** Adds a symbol when the scope declares symbols (not inside a function body). */
  private declare(
    node: SyntaxNode,
    docNode: SyntaxNode,
    kind: Exclude<SymbolKind, 'file'>,
    scope: Scope,
    body: SyntaxNode | null,
    name = node.childForFieldName('name')?.text,
    exported = scope.exported,
  ): number | undefined {
    if (!name || scope.inFunction) return undefined;
    const qualifiedName = scope.prefix ? `${scope.prefix}.${name}` : name;
    const previous = this.facts.symbols.at(-1);
    if (
      previous &&
      previous.qualifiedName === qualifiedName &&
      previous.kind === kind &&
      previous.parent === scope.owner
    ) {
      // Overloads (`write(a: A): void; write(b: B): void; write(x) {…}`) are one symbol: the
      // first signature, spanning to the implementation.
      previous.endLine = endLineOf(node);
      return this.facts.symbols.length - 1;
    }
    const symbol: SymbolFact = {
      name,
      qualifiedName,
      kind,
      startLine: lineOf(node),
      endLine: endLineOf(node),
      signature: signatureOf(node, body),
      doc: leadingComment(docNode),
      exported,
    };
    if (scope.owner !== undefined) symbol.parent = scope.owner;
    const returns = namedType(
      node.childForFieldName('return_type') ?? body?.parent?.childForFieldName('return_type') ?? null,
    );
    if (returns) symbol.returns = returns;
    this.facts.symbols.push(symbol);
    return this.facts.symbols.length - 1;
  }

  private readExport(node: SyntaxNode, scope: Scope): void {
    const source = node.childForFieldName('source');
    if (source) {
      this.facts.imports.push(reexportFact(node, stringValue(source)));
      return;
    }
    const declaration = node.childForFieldName('declaration');
    const exported = { ...scope, exported: true };
    if (node.children.some((child) => child.type === 'default')) {
      const named = declaration ?? node.namedChildren.find((child) => child.type !== 'comment');
      const name = named?.type === 'identifier' ? named.text : named?.childForFieldName('name')?.text;
      if (name) this.facts.defaultExport = name;
    }
    if (declaration) {
      switch (declaration.type) {
        case 'class_declaration':
        case 'abstract_class_declaration':
          this.readClass(declaration, node, exported);
          return;
        case 'interface_declaration':
          this.readInterface(declaration, node, exported);
          return;
        case 'function_declaration':
        case 'generator_function_declaration':
        case 'function_signature':
          this.readFunction(declaration, node, exported);
          return;
        case 'lexical_declaration':
        case 'variable_declaration':
          this.readVariables(declaration, node, exported);
          return;
        case 'internal_module':
        case 'module':
          this.readNamespace(declaration, node, exported);
          return;
        case 'enum_declaration':
          this.declare(declaration, node, 'enum', exported, declaration.childForFieldName('body'));
          return;
        case 'type_alias_declaration': {
          const index = this.declare(declaration, node, 'type', exported, null);
          this.visitTypes(declaration.childForFieldName('value'), { ...scope, owner: index ?? scope.owner });
          return;
        }
      }
    }
    for (const child of node.namedChildren) {
      if (child.type === 'export_clause') {
        for (const specifier of child.namedChildren) {
          const name = specifier.childForFieldName('name')?.text;
          if (name) this.exportedNames.add(name);
        }
      } else if (child.type === 'identifier') {
        this.exportedNames.add(child.text);
      } else if (CLASS_NODES.has(child.type)) {
        this.readClass(child, node, exported);
      } else if (FUNCTION_VALUES.has(child.type) || child.type === 'function_declaration') {
        this.readFunction(child, node, exported);
      } else {
        this.visit(child, scope);
      }
    }
  }

  private readClass(node: SyntaxNode, docNode: SyntaxNode, scope: Scope): void {
    const body = node.childForFieldName('body');
    const index = this.declare(node, docNode, 'class', scope, body);
    const inner: Scope = {
      ...scope,
      owner: index ?? scope.owner,
      classIndex: index ?? scope.classIndex,
      prefix: index !== undefined ? (this.facts.symbols[index]?.qualifiedName ?? '') : scope.prefix,
      locals: new Map(scope.locals),
    };
    for (const child of node.namedChildren) {
      if (child.type === 'class_heritage') this.readHeritage(child, inner);
      else if (child.type === 'type_parameters') this.visitTypes(child, inner);
    }
    for (const member of body?.namedChildren ?? []) this.readClassMember(member, inner);
  }

  private readHeritage(heritage: SyntaxNode, scope: Scope): void {
    for (const clause of heritage.namedChildren) {
      if (clause.type === 'extends_clause') {
        const value = clause.childForFieldName('value');
        if (value) this.typeUse(value, 'EXTENDS', scope);
        this.visitTypes(clause.childForFieldName('type_arguments'), scope);
      } else if (clause.type === 'implements_clause') {
        for (const type of clause.namedChildren) this.typeUse(type, 'IMPLEMENTS', scope);
      } else {
        // JavaScript: `class A extends B` has the expression straight under class_heritage.
        this.typeUse(clause, 'EXTENDS', scope);
      }
    }
  }

  private typeUse(node: SyntaxNode, relation: 'EXTENDS' | 'IMPLEMENTS' | 'REFERENCES', scope: Scope): void {
    const type = node.type === 'generic_type' ? namedType(node) : node.text;
    if (!type || !/^[A-Za-z_$][\w$.]*$/.test(type)) return;
    const fact: FileFacts['typeUses'][number] = { line: lineOf(node), type, relation };
    if (scope.owner !== undefined) fact.user = scope.owner;
    this.facts.typeUses.push(fact);
    if (node.type === 'generic_type') this.visitTypes(node.childForFieldName('type_arguments'), scope);
  }

  private readClassMember(member: SyntaxNode, scope: Scope): void {
    const classIndex = scope.classIndex;
    const exported = scope.exported && !isPrivate(member);
    switch (member.type) {
      case 'method_definition':
      case 'method_signature':
      case 'abstract_method_signature': {
        const name = member.childForFieldName('name')?.text;
        const body = member.childForFieldName('body');
        const index = this.declare(member, member, 'method', scope, body, name, exported);
        this.readCallable(member, { ...scope, owner: index ?? scope.owner, locals: new Map(scope.locals) });
        return;
      }
      case 'public_field_definition':
      case 'field_definition': {
        const name = (member.childForFieldName('name') ?? member.childForFieldName('property'))?.text;
        const value = member.childForFieldName('value');
        const type = namedType(member.childForFieldName('type')) ?? constructedType(value);
        if (name && type && classIndex !== undefined) setFieldType(this.facts, classIndex, name, type);
        this.visitTypes(member.childForFieldName('type'), scope);
        if (value && FUNCTION_VALUES.has(value.type)) {
          // `handle = () => {…}`: a method in all but syntax.
          const index = this.declare(
            member,
            member,
            'method',
            scope,
            value.childForFieldName('body'),
            name,
            exported,
          );
          this.readCallable(value, { ...scope, owner: index ?? scope.owner, locals: new Map(scope.locals) });
        } else if (value) {
          this.visit(value, scope);
        }
        return;
      }
      case 'comment':
        return;
      default:
        this.visit(member, scope);
    }
  }

  private readInterface(node: SyntaxNode, docNode: SyntaxNode, scope: Scope): void {
    const body = node.childForFieldName('body');
    const index = this.declare(node, docNode, 'interface', scope, body);
    const inner: Scope = {
      ...scope,
      owner: index ?? scope.owner,
      prefix: index !== undefined ? (this.facts.symbols[index]?.qualifiedName ?? '') : scope.prefix,
    };
    for (const child of node.namedChildren) {
      if (child.type === 'extends_type_clause') {
        for (const type of child.namedChildren) this.typeUse(type, 'EXTENDS', inner);
      } else if (child.type === 'type_parameters') this.visitTypes(child, inner);
    }
    for (const member of body?.namedChildren ?? []) {
      if (member.type === 'method_signature') this.readClassMember(member, inner);
      else this.visitTypes(member, inner);
    }
  }

  private readNamespace(node: SyntaxNode, docNode: SyntaxNode, scope: Scope): void {
    const body = node.childForFieldName('body');
    const nameNode = node.childForFieldName('name');
    const name = nameNode?.type === 'string' ? stringValue(nameNode) : nameNode?.text;
    const index = this.declare(node, docNode, 'module', scope, body, name);
    const inner: Scope = {
      ...scope,
      owner: index ?? scope.owner,
      exported: false,
      prefix: index !== undefined ? (this.facts.symbols[index]?.qualifiedName ?? '') : scope.prefix,
    };
    if (body) this.visitChildren(body, inner);
  }

  private readFunction(node: SyntaxNode, docNode: SyntaxNode, scope: Scope): void {
    const index = this.declare(node, docNode, 'function', scope, node.childForFieldName('body'));
    this.readCallable(node, { ...scope, owner: index ?? scope.owner, locals: new Map(scope.locals) });
  }

  /** A function value met inside code: its body belongs to whoever encloses it. */
  private readFunctionBody(node: SyntaxNode, scope: Scope): void {
    this.readCallable(node, { ...scope, locals: new Map(scope.locals) });
  }

  /** Parameters (their annotated types become known locals), return type, then the body. */
  private readCallable(node: SyntaxNode, scope: Scope): void {
    const inner: Scope = { ...scope, inFunction: true };
    const parameters = node.childForFieldName('parameters') ?? node.childForFieldName('parameter');
    for (const parameter of parameters?.namedChildren ?? []) {
      const pattern = parameter.childForFieldName('pattern');
      const annotation = parameter.childForFieldName('type');
      const type = namedType(annotation);
      if (pattern?.type === 'identifier' && type) {
        inner.locals.set(pattern.text, { kind: 'typed', type });
        // `constructor(private rates: RateTable)` declares the field `this.rates` too.
        if (isParameterProperty(parameter) && scope.classIndex !== undefined) {
          setFieldType(this.facts, scope.classIndex, pattern.text, type);
        }
      }
      this.visitTypes(annotation, scope);
      const defaultValue = parameter.childForFieldName('value');
      if (defaultValue) this.visit(defaultValue, inner);
    }
    this.visitTypes(node.childForFieldName('return_type'), scope);
    const body = node.childForFieldName('body');
    if (body) this.visit(body, inner);
  }

  private readVariables(node: SyntaxNode, docNode: SyntaxNode, scope: Scope): void {
    const constant = node.type === 'lexical_declaration' && node.child(0)?.type === 'const';
    for (const declarator of node.namedChildren) {
      if (declarator.type !== 'variable_declarator') continue;
      const nameNode = declarator.childForFieldName('name');
      const value = declarator.childForFieldName('value');
      const annotation = declarator.childForFieldName('type');
      const required = value && requiredModule(value);
      if (required) {
        this.facts.imports.push({
          specifier: required,
          line: lineOf(declarator),
          bindings: requireBindings(nameNode),
        });
        continue;
      }
      if (nameNode?.type === 'identifier') {
        const type = namedType(annotation) ?? constructedType(value);
        const known: Receiver | undefined = type ? { kind: 'typed', type } : this.resultOf(value, scope);
        if (known) scope.locals.set(nameNode.text, known);
      }
      this.visitTypes(annotation, scope);
      if (scope.inFunction || nameNode?.type !== 'identifier') {
        if (value) this.visit(value, scope);
        continue;
      }
      if (value && FUNCTION_VALUES.has(value.type)) {
        const index = this.declare(
          declarator,
          docNode,
          'function',
          scope,
          value.childForFieldName('body'),
          nameNode.text,
        );
        this.readCallable(value, { ...scope, owner: index ?? scope.owner, locals: new Map(scope.locals) });
        continue;
      }
      // Module-level values become symbols only when exported: the rest are implementation detail.
      const index = scope.exported
        ? this.declare(declarator, docNode, constant ? 'constant' : 'variable', scope, null, nameNode.text)
        : undefined;
      if (value) this.visit(value, { ...scope, owner: index ?? scope.owner });
    }
  }

  private readCall(node: SyntaxNode, scope: Scope): void {
    const callee = node.childForFieldName('function');
    const calleeType = callee?.type;
    const object = calleeType === 'member_expression' ? callee?.childForFieldName('object') : null;
    const shape = this.callShape(callee, calleeType, object, scope);
    if (shape) this.addCall({ ...shape, line: lineOf(node) }, scope);
    if (object) {
      // A receiver the shape names (`this`, `x`, `this.x`) holds no call of its own.
      const objectType = object.type;
      if (objectType !== 'this' && objectType !== 'identifier' && !thisField(object, objectType)) {
        this.visit(object, scope);
      }
    } else if (callee && calleeType !== 'identifier' && calleeType !== 'member_expression') {
      this.visit(callee, scope);
    }
    const args = node.childForFieldName('arguments');
    if (args) this.visit(args, scope);
  }

  /** `f()`, `x.m()`, `new X()` as a CallShape; undefined for calls of computed functions. */
  private shapeOf(node: SyntaxNode, scope: Scope, type = node.type): CallShape | undefined {
    if (type === 'new_expression') {
      const made = node.childForFieldName('constructor');
      const madeType = made?.type;
      if (madeType === 'identifier') return { callee: (made as SyntaxNode).text, construct: true };
      const property = madeType === 'member_expression' ? made?.childForFieldName('property') : null;
      const object = made?.childForFieldName('object');
      return property && object
        ? { callee: property.text, receiver: this.receiverOf(object, scope), construct: true }
        : undefined;
    }
    const callee = node.childForFieldName('function');
    const calleeType = callee?.type;
    const object = calleeType === 'member_expression' ? callee?.childForFieldName('object') : null;
    return this.callShape(callee, calleeType, object, scope);
  }

  private callShape(
    callee: SyntaxNode | null,
    calleeType: string | undefined,
    object: SyntaxNode | null | undefined,
    scope: Scope,
  ): CallShape | undefined {
    if (calleeType === 'identifier') return { callee: (callee as SyntaxNode).text };
    if (calleeType !== 'member_expression') return undefined;
    const property = callee?.childForFieldName('property');
    return property && object
      ? { callee: property.text, receiver: this.receiverOf(object, scope) }
      : undefined;
  }

  /** A local assigned a call holds that call's result. */
  private resultOf(value: SyntaxNode | null, scope: Scope): Receiver | undefined {
    if (value?.type !== 'call_expression') return undefined;
    const call = this.shapeOf(value, scope);
    return call ? { kind: 'result', call } : undefined;
  }

  private readNew(node: SyntaxNode, scope: Scope): void {
    const shape = this.shapeOf(node, scope);
    if (shape) this.addCall({ ...shape, line: lineOf(node) }, scope);
    this.visitTypes(node.childForFieldName('type_arguments'), scope);
    const args = node.childForFieldName('arguments');
    if (args) this.visit(args, scope);
  }

  private addCall(call: Omit<FileFacts['calls'][number], 'caller'>, scope: Scope): void {
    this.facts.calls.push(scope.owner !== undefined ? { ...call, caller: scope.owner } : call);
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
    const type = object.type;
    if (type === 'this') return { kind: 'self' };
    if (type === 'super') return { kind: 'super' };
    if (type === 'identifier') return scope.locals.get(object.text) ?? { kind: 'name', name: object.text };
    const field = thisField(object, type);
    if (field) return { kind: 'field', name: field };
    if (type === 'call_expression' || type === 'new_expression') {
      const call = this.shapeOf(object, scope, type);
      if (call) return { kind: 'result', call };
    }
    if (type === 'parenthesized_expression' && object.namedChild(0)) {
      return this.receiverOf(object.namedChild(0) as SyntaxNode, scope);
    }
    return { kind: 'unknown' };
  }

  /** Records every named type in a type position as a REFERENCES use by the owner. */
  private visitTypes(node: SyntaxNode | null, scope: Scope): void {
    if (this.depth >= MAX_NESTING) return;
    this.depth++;
    try {
      this.readTypes(node, scope);
    } finally {
      this.depth--;
    }
  }

  private readTypes(node: SyntaxNode | null, scope: Scope): void {
    if (!node) return;
    if (node.type === 'type_identifier' || node.type === 'nested_type_identifier') {
      this.typeUse(node, 'REFERENCES', scope);
      return;
    }
    if (node.type === 'type_parameter') {
      // The parameter's own name is a declaration; only its constraint and default use types.
      for (const child of node.namedChildren.slice(1)) this.visitTypes(child, scope);
      return;
    }
    if (node.type === 'implements_clause') {
      for (const type of node.namedChildren) this.typeUse(type, 'IMPLEMENTS', scope);
      return;
    }
    for (const child of node.namedChildren) this.visitTypes(child, scope);
  }
}
