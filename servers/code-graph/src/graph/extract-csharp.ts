import { type ClassScope, classScope, memberReceiver, nameReceiver } from './extract-shared-classes.js';
import { constructionOf, forEachNamedType, type TypeReading, typeNamed } from './extract-shared-types.js';
import type { CallShape, FileFacts, ImportFact, Receiver, SymbolKind } from './facts.js';
import { commentAbove, FactsBuilder } from './facts-builder.js';
import { lineOf, type SyntaxNode, type SyntaxTree } from './syntax.js';

interface CsharpScope extends ClassScope {
  /** The namespace the walk is in (`Bank.Accounts`), which prefixes namespaces declared inside it. */
  namespace: string;
}

const TYPE_DECLARATIONS = new Map<string, Exclude<SymbolKind, 'file'>>([
  ['class_declaration', 'class'],
  ['struct_declaration', 'struct'],
  ['interface_declaration', 'interface'],
  ['enum_declaration', 'enum'],
  ['record_declaration', 'class'],
]);

/** C# names types as plain identifiers; an awaited `Task<Money>` gives a Money. */
const TYPES: TypeReading = { identifiersAreTypes: true };
const RETURNS: TypeReading = { identifiersAreTypes: true, transparent: new Set(['Task', 'ValueTask']) };
/** Operators that read like calls. */
const NOT_CALLS = new Set(['nameof', 'typeof', 'sizeof', 'default']);

/**
 * Reads C# trees: namespaces (block and file-scoped), classes, structs, interfaces, enums,
 * records and delegates with their methods, properties and constants, `public` as the export
 * flag, `using` directives, base lists, calls on `this`, typed parameters, locals, fields and
 * properties, and `new X()` (also target-typed `Money m = new(…)`).
 */
export function extractCsharp(tree: SyntaxTree): FileFacts {
  return new CsharpReader().read(tree.rootNode);
}

class CsharpReader {
  private readonly builder = new FactsBuilder();

  read(root: SyntaxNode): FileFacts {
    this.readBlock(root.namedChildren, { ...classScope(), namespace: '' });
    return this.builder.facts;
  }

  private visit(node: SyntaxNode, scope: CsharpScope): void {
    this.builder.nested(() => this.visitNode(node, scope));
  }

  private visitChildren(node: SyntaxNode, scope: CsharpScope): void {
    for (const child of node.namedChildren) this.visit(child, scope);
  }

  /** The members of a compilation unit or namespace; a file-scoped namespace takes what follows it. */
  private readBlock(members: SyntaxNode[], scope: CsharpScope): void {
    let current = scope;
    for (const member of members) {
      if (member.type === 'file_scoped_namespace_declaration') current = this.readNamespace(member, scope);
      else this.visit(member, current);
    }
  }

  private visitNode(node: SyntaxNode, scope: CsharpScope): void {
    const kind = TYPE_DECLARATIONS.get(node.type);
    if (kind) {
      this.readType(node, kind, scope);
      return;
    }
    switch (node.type) {
      case 'comment':
        return;
      case 'using_directive':
        this.readUsing(node);
        return;
      case 'namespace_declaration':
        this.readNamespace(node, scope);
        return;
      case 'delegate_declaration':
        this.readDelegate(node, scope);
        return;
      case 'invocation_expression':
        this.readCall(node, scope);
        return;
      case 'object_creation_expression':
        this.readNew(node, scope, typeNamed(node.childForFieldName('type'), TYPES));
        return;
      case 'variable_declaration':
        this.readVariables(node, scope);
        return;
      case 'foreach_statement':
      case 'declaration_pattern':
      case 'declaration_expression':
      case 'catch_declaration':
        this.readBinding(node, scope);
        return;
      case 'local_function_statement':
        this.readLocalFunction(node, scope);
        return;
      case 'lambda_expression':
      case 'anonymous_method_expression':
        this.readLambda(node, scope);
        return;
      case 'cast_expression':
      case 'as_expression':
      case 'is_expression':
        this.references(node.childForFieldName('type') ?? node.childForFieldName('right'), scope);
        this.visitChildren(node, scope);
        return;
      default:
        this.visitChildren(node, scope);
    }
  }

  /** A namespace is a module symbol; what it declares is top-level, named without it (`Account.Deposit`). */
  private readNamespace(node: SyntaxNode, scope: CsharpScope): CsharpScope {
    const written = node.childForFieldName('name')?.text.replace(/\s+/g, '') ?? '';
    const full = scope.namespace ? `${scope.namespace}.${written}` : written;
    const dot = full.lastIndexOf('.');
    const name = full.slice(dot + 1);
    if (name) {
      this.builder.declare(
        { name, kind: 'module', node, body: node.childForFieldName('body'), exported: true },
        { ...classScope(), prefix: dot < 0 ? '' : full.slice(0, dot) },
      );
    }
    const inner: CsharpScope = { ...scope, namespace: full };
    const body = node.childForFieldName('body');
    if (body) this.readBlock(body.namedChildren, inner);
    return inner;
  }

  /**
   * `using Bank.Pricing;` and `using static Bank.Util.Maths;` make every name of the namespace
   * (or every member of the class) visible; `using M = Bank.Pricing.Money;` binds one name to a
   * namespace or a type. `global using` is read as a using of this file alone.
   */
  private readUsing(node: SyntaxNode): void {
    const alias = node.childForFieldName('name');
    const target = node.namedChildren.find(
      (child) => child.id !== alias?.id && (child.type === 'qualified_name' || child.type === 'identifier'),
    );
    if (!target) return;
    const specifier = target.text.replace(/\s+/g, '').replace(/^global::/, '');
    const fact: ImportFact = { specifier, line: lineOf(node), bindings: [] };
    if (alias) fact.bindings.push({ local: alias.text });
    else fact.star = true;
    this.builder.facts.imports.push(fact);
  }

  private modifiers(node: SyntaxNode): Set<string> {
    return new Set(
      node.namedChildren.filter((child) => child.type === 'modifier').map((child) => child.text),
    );
  }

  /** `public` (or any non-private member of an interface), inside something that is exported itself. */
  private isExported(node: SyntaxNode, scope: CsharpScope): boolean {
    const modifiers = this.modifiers(node);
    const own = scope.inInterface ? !modifiers.has('private') : modifiers.has('public');
    return own && scope.visible;
  }

  private readType(node: SyntaxNode, kind: Exclude<SymbolKind, 'file'>, scope: CsharpScope): void {
    const name = node.childForFieldName('name')?.text;
    const body = node.childForFieldName('body');
    if (!name) return;
    const isStruct = kind === 'struct' || node.children.some((child) => child.type === 'struct');
    const exported = this.isExported(node, scope);
    const index = this.builder.declare(
      { name, kind: isStruct ? 'struct' : kind, node, body, exported, doc: this.docOf(node) },
      scope,
    );
    if (index === undefined) return;
    const inner: CsharpScope = {
      ...scope,
      ...this.builder.inside(index, scope, true),
      visible: exported,
      inInterface: kind === 'interface',
      fields: new Set(scope.fields),
    };
    this.readBases(node, kind, isStruct, inner);
    this.references(node.childForFieldName('type_parameters'), inner);
    const members = body?.namedChildren ?? [];
    // A record's positional parameters are its properties.
    for (const parameter of node.namedChildren.find((child) => child.type === 'parameter_list')
      ?.namedChildren ?? []) {
      this.knowField(parameter.childForFieldName('name')?.text, parameter.childForFieldName('type'), inner);
      this.references(parameter.childForFieldName('type'), inner);
    }
    for (const member of members) {
      if (member.type === 'property_declaration') {
        this.knowField(member.childForFieldName('name')?.text, member.childForFieldName('type'), inner);
      } else if (member.type === 'field_declaration') {
        const declaration = member.namedChildren.find((child) => child.type === 'variable_declaration');
        for (const declarator of declaration?.namedChildren ?? []) {
          if (declarator.type !== 'variable_declarator') continue;
          this.knowField(
            declarator.childForFieldName('name')?.text,
            declaration?.childForFieldName('type') ?? null,
            inner,
          );
        }
      }
    }
    for (const member of members) this.readMember(member, inner);
  }

  private knowField(name: string | undefined, type: SyntaxNode | null, scope: CsharpScope): void {
    if (!name) return;
    scope.fields.add(name);
    this.builder.setFieldType(scope.classIndex, name, typeNamed(type, TYPES));
  }

  /**
   * A base list does not say which entry is a class: the first entry of a class is taken as its
   * base class unless it follows the `IName` convention of interfaces; the rest are interfaces.
   * Structs implement; interfaces extend.
   */
  private readBases(
    node: SyntaxNode,
    kind: Exclude<SymbolKind, 'file'>,
    isStruct: boolean,
    scope: CsharpScope,
  ): void {
    const bases = node.namedChildren.find((child) => child.type === 'base_list')?.namedChildren ?? [];
    bases.forEach((entry, position) => {
      const typeNode =
        entry.type === 'primary_constructor_base_type' ? entry.childForFieldName('type') : entry;
      const base = typeNamed(typeNode, TYPES);
      if (!base) return;
      const interfaceLike = /^I\p{Lu}/u.test(base.slice(base.lastIndexOf('.') + 1));
      const relation =
        kind === 'interface'
          ? 'EXTENDS'
          : isStruct || position > 0 || interfaceLike
            ? 'IMPLEMENTS'
            : 'EXTENDS';
      this.builder.typeUse(base, lineOf(entry), relation, scope);
      if (typeNode?.type === 'generic_name') this.references(typeNode.namedChild(1), scope);
      const args = entry.namedChildren.find((child) => child.type === 'argument_list');
      if (args) this.visit(args, scope);
    });
  }

  private readMember(member: SyntaxNode, scope: CsharpScope): void {
    switch (member.type) {
      case 'method_declaration':
      case 'constructor_declaration':
        this.readMethod(member, scope);
        return;
      case 'property_declaration':
        this.readProperty(member, scope);
        return;
      case 'field_declaration':
        this.readField(member, scope);
        return;
      case 'comment':
        return;
      default:
        this.visit(member, scope);
    }
  }

  private readMethod(node: SyntaxNode, scope: CsharpScope): void {
    const name = node.childForFieldName('name')?.text;
    if (!name) return;
    const body = node.childForFieldName('body');
    const returnsNode = node.childForFieldName('returns');
    const index = this.builder.declare(
      {
        name,
        kind: 'method',
        node,
        body,
        exported: this.isExported(node, scope),
        returns: typeNamed(returnsNode, RETURNS),
        doc: this.docOf(node),
      },
      scope,
    );
    const owner: CsharpScope = { ...scope, owner: index ?? scope.owner };
    const inner: CsharpScope = { ...owner, inFunction: true, locals: new Map(scope.locals) };
    this.readParameters(node.childForFieldName('parameters'), inner, owner);
    this.references(returnsNode, owner);
    this.references(node.childForFieldName('type_parameters'), owner);
    const initializer = node.namedChildren.find((child) => child.type === 'constructor_initializer');
    if (initializer) this.visitChildren(initializer, inner);
    if (body) this.visit(body, inner);
  }

  /** Properties are the variables of a class's surface; their accessors are code of them. */
  private readProperty(node: SyntaxNode, scope: CsharpScope): void {
    const name = node.childForFieldName('name')?.text;
    const typeNode = node.childForFieldName('type');
    const index = name
      ? this.builder.declare(
          {
            name,
            kind: 'variable',
            node,
            body: node.childForFieldName('accessors') ?? node.childForFieldName('value'),
            exported: this.isExported(node, scope),
            returns: typeNamed(typeNode, TYPES),
            doc: this.docOf(node),
          },
          scope,
        )
      : undefined;
    const owner: CsharpScope = { ...scope, owner: index ?? scope.owner };
    this.references(typeNode, owner);
    const inner: CsharpScope = { ...owner, inFunction: true, locals: new Map(scope.locals) };
    for (const part of node.namedChildren) {
      if (part.type === 'accessor_list' || part.type === 'arrow_expression_clause') this.visit(part, inner);
      else if (part.id !== typeNode?.id && part.type !== 'identifier' && part.type !== 'modifier')
        this.visit(part, owner);
    }
  }

  /** `const` and `static readonly` fields are constants, symbols of their class; every initialiser is code of it. */
  private readField(node: SyntaxNode, scope: CsharpScope): void {
    const modifiers = this.modifiers(node);
    const constant = modifiers.has('const') || (modifiers.has('static') && modifiers.has('readonly'));
    const declaration = node.namedChildren.find((child) => child.type === 'variable_declaration');
    if (!declaration) return;
    const typeNode = declaration.childForFieldName('type');
    this.references(typeNode, scope);
    for (const declarator of declaration.namedChildren) {
      if (declarator.type !== 'variable_declarator') continue;
      const name = declarator.childForFieldName('name')?.text;
      const index =
        constant && name
          ? this.builder.declare(
              {
                name,
                kind: 'constant',
                node: declarator,
                docNode: node,
                body: null,
                exported: this.isExported(node, scope),
                doc: this.docOf(node),
              },
              scope,
            )
          : undefined;
      this.readInitializer(declarator, typeNode, { ...scope, owner: index ?? scope.owner });
    }
  }

  private readDelegate(node: SyntaxNode, scope: CsharpScope): void {
    const name = node.childForFieldName('name')?.text;
    if (!name) return;
    const index = this.builder.declare(
      { name, kind: 'type', node, body: null, exported: this.isExported(node, scope), doc: this.docOf(node) },
      scope,
    );
    const owner = { ...scope, owner: index ?? scope.owner };
    this.references(node.childForFieldName('type'), owner);
    this.references(node.childForFieldName('parameters'), owner);
  }

  private readParameters(list: SyntaxNode | null, inner: CsharpScope, owner: CsharpScope): void {
    for (const parameter of list?.namedChildren ?? []) {
      const name =
        parameter.type === 'implicit_parameter' ? parameter.text : parameter.childForFieldName('name')?.text;
      if (!name) continue;
      const typeNode = parameter.childForFieldName('type');
      const type = typeNamed(typeNode, TYPES);
      inner.locals.set(name, type ? { kind: 'typed', type } : { kind: 'unknown' });
      this.references(typeNode, owner);
    }
  }

  private readVariables(node: SyntaxNode, scope: CsharpScope): void {
    const typeNode = node.childForFieldName('type');
    const type = typeNamed(typeNode, TYPES);
    this.references(typeNode, scope);
    for (const declarator of node.namedChildren) {
      if (declarator.type !== 'variable_declarator') continue;
      const name = declarator.childForFieldName('name')?.text;
      const value = this.readInitializer(declarator, typeNode, scope);
      if (!name) continue;
      const known: Receiver = type
        ? { kind: 'typed', type }
        : value
          ? this.receiverOf(value, scope)
          : { kind: 'unknown' };
      scope.locals.set(name, known);
    }
  }

  /** A declarator's value; `Money m = new(5)` is a call of the declared type. */
  private readInitializer(
    declarator: SyntaxNode,
    typeNode: SyntaxNode | null,
    scope: CsharpScope,
  ): SyntaxNode | undefined {
    const name = declarator.childForFieldName('name');
    const value = declarator.namedChildren.find(
      (child) => child.id !== name?.id && child.type !== 'bracketed_argument_list',
    );
    if (value?.type === 'implicit_object_creation_expression')
      this.readNew(value, scope, typeNamed(typeNode, TYPES));
    else if (value) this.visit(value, scope);
    return value;
  }

  /** `foreach (Money m in all)`, `x is Money m`, `out Money m`, `catch (E e)`: a typed name. */
  private readBinding(node: SyntaxNode, scope: CsharpScope): void {
    const typeNode = node.childForFieldName('type');
    const name = (node.childForFieldName('name') ?? node.childForFieldName('left'))?.text;
    const type = typeNamed(typeNode, TYPES);
    this.references(typeNode, scope);
    if (name) scope.locals.set(name, type ? { kind: 'typed', type } : { kind: 'unknown' });
    for (const child of node.namedChildren) if (child.id !== typeNode?.id) this.visit(child, scope);
  }

  /** A local function is no symbol: its name is a local (so a bare call of it is no method call). */
  private readLocalFunction(node: SyntaxNode, scope: CsharpScope): void {
    const name = node.childForFieldName('name')?.text;
    if (name) scope.locals.set(name, { kind: 'unknown' });
    this.readLambda(node, scope);
  }

  private readLambda(node: SyntaxNode, scope: CsharpScope): void {
    const inner: CsharpScope = { ...scope, locals: new Map(scope.locals) };
    const parameters = node.childForFieldName('parameters');
    if (parameters?.type === 'implicit_parameter') inner.locals.set(parameters.text, { kind: 'unknown' });
    else this.readParameters(parameters, inner, scope);
    const body = node.childForFieldName('body');
    if (body) this.visit(body, inner);
  }

  private readCall(node: SyntaxNode, scope: CsharpScope): void {
    const shape = this.shapeOf(node, scope);
    if (shape) this.builder.addCall(shape, lineOf(node), scope);
    const callee = node.childForFieldName('function');
    const object =
      callee?.type === 'member_access_expression'
        ? callee.childForFieldName('expression')
        : callee?.type === 'conditional_access_expression'
          ? callee.childForFieldName('condition')
          : null;
    if (object) this.visit(object, scope);
    const args = node.childForFieldName('arguments');
    if (args) this.visit(args, scope);
  }

  private shapeOf(node: SyntaxNode, scope: CsharpScope): CallShape | undefined {
    const callee = node.childForFieldName('function');
    if (!callee) return undefined;
    const bare = callee.type === 'generic_name' ? callee.namedChild(0) : callee;
    if (bare?.type === 'identifier') {
      const name = bare.text;
      if (NOT_CALLS.has(name)) return undefined;
      // A bare call is a method of this class or a base (local functions are locals).
      if (scope.classIndex === undefined || scope.locals.has(name)) return { callee: name };
      return { callee: name, receiver: { kind: 'self' } };
    }
    if (callee.type === 'member_access_expression') {
      const expression = callee.childForFieldName('expression');
      const name = this.memberName(callee.childForFieldName('name'));
      return expression && name
        ? { callee: name, receiver: this.objectReceiver(expression, scope) }
        : undefined;
    }
    if (callee.type === 'conditional_access_expression') {
      // `a?.Add(m)`: the name is in the binding that follows the `?`.
      const condition = callee.childForFieldName('condition');
      const binding = callee.namedChildren.find((child) => child.type === 'member_binding_expression');
      const name = this.memberName(binding?.childForFieldName('name') ?? null);
      return condition && name ? { callee: name, receiver: this.receiverOf(condition, scope) } : undefined;
    }
    return undefined;
  }

  private memberName(node: SyntaxNode | null): string | undefined {
    return (node?.type === 'generic_name' ? node.namedChild(0) : node)?.text;
  }

  /** What stands before `.Name`: `this`, `base`, or an expression. */
  private objectReceiver(expression: SyntaxNode, scope: CsharpScope): Receiver {
    if (expression.type === 'this') return { kind: 'self' };
    if (expression.type === 'base') return { kind: 'super' };
    return this.receiverOf(expression, scope);
  }

  /** `new Money(…)` calls the class; an object initialiser's values are code of the enclosing symbol. */
  private readNew(node: SyntaxNode, scope: CsharpScope, type: string | undefined): void {
    const shape = type ? constructionOf(type) : undefined;
    if (shape) this.builder.addCall(shape, lineOf(node), scope);
    for (const child of node.namedChildren)
      if (child.type !== 'identifier' && child.type !== 'qualified_name') this.visit(child, scope);
  }

  private receiverOf(node: SyntaxNode, scope: CsharpScope): Receiver {
    return this.builder.chained(() => this.describeReceiver(node, scope));
  }

  private describeReceiver(node: SyntaxNode, scope: CsharpScope): Receiver {
    switch (node.type) {
      case 'this':
        return { kind: 'self' };
      case 'identifier':
        return nameReceiver(node.text, scope);
      case 'member_access_expression': {
        const expression = node.childForFieldName('expression');
        const name = node.childForFieldName('name')?.text;
        if (!expression || !name) return { kind: 'unknown' };
        if (expression.type === 'this') return { kind: 'field', name };
        const of =
          expression.type === 'identifier'
            ? nameReceiver(expression.text, scope, true)
            : this.objectReceiver(expression, scope);
        return memberReceiver(of, name);
      }
      case 'conditional_access_expression': {
        const condition = node.childForFieldName('condition');
        const binding = node.namedChildren.find((child) => child.type === 'member_binding_expression');
        const name = binding?.childForFieldName('name')?.text;
        return condition && name
          ? memberReceiver(this.receiverOf(condition, scope), name)
          : { kind: 'unknown' };
      }
      case 'invocation_expression': {
        const call = this.shapeOf(node, scope);
        return call ? { kind: 'result', call } : { kind: 'unknown' };
      }
      case 'object_creation_expression': {
        const type = typeNamed(node.childForFieldName('type'), TYPES);
        const call = type ? constructionOf(type) : undefined;
        return call ? { kind: 'result', call } : { kind: 'unknown' };
      }
      case 'cast_expression':
      case 'as_expression': {
        const type = typeNamed(node.childForFieldName('type') ?? node.childForFieldName('right'), TYPES);
        return type ? { kind: 'typed', type } : { kind: 'unknown' };
      }
      case 'await_expression':
      case 'parenthesized_expression':
      case 'postfix_unary_expression': {
        // `(await GetAsync()).Add(…)`, `x!.Add(…)`: the value inside.
        const inner = node.namedChild(0);
        return inner ? this.receiverOf(inner, scope) : { kind: 'unknown' };
      }
      default:
        return { kind: 'unknown' };
    }
  }

  /** The `<summary>` of an XML doc comment, or the comment without its tags. */
  private docOf(node: SyntaxNode): string {
    const text = commentAbove(node);
    const summary = /<summary>([\s\S]*?)<\/summary>/.exec(text)?.[1];
    return (summary ?? text)
      .replace(/<see\s+cref="([^"]+)"\s*\/>/g, '$1')
      .replace(/<[^>]+>/g, '')
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .join('\n');
  }

  private references(node: SyntaxNode | null | undefined, scope: CsharpScope): void {
    forEachNamedType(node, TYPES, (type, named) =>
      this.builder.typeUse(type, lineOf(named), 'REFERENCES', scope),
    );
  }
}
