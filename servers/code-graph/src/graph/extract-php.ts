import type { CallShape, FileFacts, Receiver } from './facts.js';
import { type BuilderScope, FactsBuilder, fileScope } from './facts-builder.js';
import { endLineOf, lineOf, type SyntaxNode, type SyntaxTree } from './syntax.js';

const INCLUDES = new Set([
  'require_expression',
  'require_once_expression',
  'include_expression',
  'include_once_expression',
]);
const CLASS_LIKE = new Map<string, 'class' | 'interface' | 'enum'>([
  ['class_declaration', 'class'],
  ['interface_declaration', 'interface'],
  // A trait is a set of methods a class takes in; the grammar's own tags query calls it an interface.
  ['trait_declaration', 'interface'],
  ['enum_declaration', 'enum'],
]);

/** Reads PHP trees: namespaces, classes, interfaces, traits, functions, `use` imports and calls. */
export function extractPhp(tree: SyntaxTree): FileFacts {
  return new PhpReader().read(tree.rootNode);
}

class PhpReader {
  private readonly builder = new FactsBuilder();

  read(root: SyntaxNode): FileFacts {
    this.readStatements(root.namedChildren, fileScope());
    return this.builder.facts;
  }

  /**
   * A list of statements. `namespace Bank;` (the statement form) puts everything after it, up to
   * the next namespace statement, inside that namespace.
   */
  private readStatements(statements: SyntaxNode[], scope: BuilderScope): void {
    let current = scope;
    statements.forEach((statement, position) => {
      if (statement.type === 'namespace_definition' && !statement.childForFieldName('body')) {
        const next = statements.slice(position + 1).find((later) => later.type === 'namespace_definition');
        const endLine = next ? lineOf(next) - 1 : endLineOf(statements.at(-1) ?? statement);
        current = this.declareNamespace(statement, scope, endLine);
        return;
      }
      this.visit(statement, current);
    });
  }

  private declareNamespace(node: SyntaxNode, scope: BuilderScope, endLine?: number): BuilderScope {
    const name = node.childForFieldName('name');
    if (!name) return scope;
    const index = this.builder.declare(
      {
        name: dotted(name.text),
        kind: 'module',
        node,
        body: null,
        exported: true,
        ...(endLine && { endLine }),
      },
      scope,
    );
    return this.builder.inside(index, scope, false);
  }

  private visitChildren(node: SyntaxNode, scope: BuilderScope): void {
    for (const child of node.namedChildren) this.visit(child, scope);
  }

  private visit(node: SyntaxNode, scope: BuilderScope): void {
    this.builder.nested(() => this.visitNode(node, scope));
  }

  private visitNode(node: SyntaxNode, scope: BuilderScope): void {
    const classKind = CLASS_LIKE.get(node.type);
    if (classKind) {
      this.readClass(node, classKind, scope);
      return;
    }
    if (INCLUDES.has(node.type)) {
      this.readInclude(node, scope);
      return;
    }
    switch (node.type) {
      case 'comment':
      case 'text':
        return;
      case 'namespace_definition': {
        const body = node.childForFieldName('body');
        if (body) this.readStatements(body.namedChildren, this.declareNamespace(node, scope));
        return;
      }
      case 'namespace_use_declaration':
        this.readUse(node);
        return;
      case 'function_definition':
        this.readFunction(node, 'function', true, scope);
        return;
      case 'const_declaration':
        for (const element of node.namedChildren) {
          if (element.type !== 'const_element') continue;
          const name = element.namedChild(0)?.text ?? '';
          this.builder.declare(
            { name, kind: 'constant', node: element, docNode: node, body: null, exported: true },
            scope,
          );
          this.visitChildren(element, scope);
        }
        return;
      case 'assignment_expression':
        this.readAssignment(node, scope);
        return;
      case 'member_call_expression':
      case 'nullsafe_member_call_expression':
      case 'scoped_call_expression':
      case 'function_call_expression':
      case 'object_creation_expression':
        this.readCall(node, scope);
        return;
      default:
        this.visitChildren(node, scope);
    }
  }

  /** `use Bank\Money;`, `use Bank\{Money, Rate as R};`, `use function Bank\helper;` */
  private readUse(node: SyntaxNode): void {
    const group = node.childForFieldName('body');
    const groupPrefix = group
      ? node.namedChildren.find((child) => child.type === 'namespace_name')?.text
      : undefined;
    const clauses = group ? group.namedChildren : node.namedChildren;
    for (const clause of clauses) {
      if (clause.type !== 'namespace_use_clause') continue;
      const named = clause.namedChildren.find(
        (child) => child.type === 'qualified_name' || child.type === 'name',
      );
      if (!named) continue;
      const written = groupPrefix ? `${groupPrefix}\\${named.text}` : named.text;
      const qualified = dotted(written);
      const alias = clause.childForFieldName('alias')?.text;
      this.builder.facts.imports.push({
        specifier: written.replace(/^\\/, ''),
        line: lineOf(clause),
        bindings: [{ imported: qualified, local: alias ?? qualified.slice(qualified.lastIndexOf('.') + 1) }],
      });
    }
  }

  /** `require_once __DIR__ . '/helpers.php'` → `./helpers.php`; a path built from other values is not followed. */
  private readInclude(node: SyntaxNode, scope: BuilderScope): void {
    const path = includedPath(node.namedChild(0));
    if (path) this.builder.include(path, lineOf(node));
    else this.visitChildren(node, scope);
  }

  private readClass(node: SyntaxNode, kind: 'class' | 'interface' | 'enum', scope: BuilderScope): void {
    const body = node.childForFieldName('body');
    const index = this.builder.declare(
      { name: node.childForFieldName('name')?.text ?? '', kind, node, body, exported: true },
      scope,
    );
    const inner = this.builder.inside(index, scope, true);
    for (const clause of node.namedChildren) {
      if (clause.type !== 'base_clause' && clause.type !== 'class_interface_clause') continue;
      // An interface's `extends` lists interfaces it extends; a class's lists its one base.
      const relation = clause.type === 'base_clause' ? 'EXTENDS' : 'IMPLEMENTS';
      for (const type of clause.namedChildren) this.useType(type, relation, inner);
    }
    for (const member of body?.namedChildren ?? []) this.readMember(member, inner);
  }

  private readMember(member: SyntaxNode, scope: BuilderScope): void {
    switch (member.type) {
      case 'use_declaration':
        for (const trait of member.namedChildren) this.useType(trait, 'EXTENDS', scope);
        return;
      case 'method_declaration':
        this.readFunction(member, 'method', visibility(member) === 'public', scope);
        return;
      case 'property_declaration': {
        const type = phpType(member.childForFieldName('type'));
        this.useType(member.childForFieldName('type'), 'REFERENCES', scope);
        for (const element of member.namedChildren) {
          if (element.type !== 'property_element') continue;
          const name = element.childForFieldName('name')?.text.slice(1);
          if (name) this.builder.setFieldType(scope.classIndex, name, type);
          this.visitChildren(element, scope);
        }
        return;
      }
      case 'const_declaration':
        for (const element of member.namedChildren) {
          if (element.type !== 'const_element') continue;
          this.builder.declare(
            {
              name: element.namedChild(0)?.text ?? '',
              kind: 'constant',
              node: element,
              docNode: member,
              body: null,
              exported: visibility(member) === 'public',
            },
            scope,
          );
        }
        return;
      default:
        this.visit(member, scope);
    }
  }

  private readFunction(
    node: SyntaxNode,
    kind: 'function' | 'method',
    exported: boolean,
    scope: BuilderScope,
  ): void {
    const body = node.childForFieldName('body');
    const returnType = node.childForFieldName('return_type');
    const index = this.builder.declare(
      {
        name: node.childForFieldName('name')?.text ?? '',
        kind,
        node,
        body,
        exported,
        returns: selfType(phpType(returnType), scope, this.builder),
      },
      scope,
    );
    const inner: BuilderScope = {
      ...scope,
      owner: index ?? scope.owner,
      inFunction: true,
      locals: new Map(),
    };
    for (const parameter of node.childForFieldName('parameters')?.namedChildren ?? []) {
      const typeNode = parameter.childForFieldName('type');
      const type = phpType(typeNode);
      const name = parameter.childForFieldName('name')?.text.slice(1);
      this.useType(typeNode, 'REFERENCES', inner);
      if (name && type) inner.locals.set(name, { kind: 'typed', type });
      // `__construct(private Rate $rate)` declares the field too.
      if (parameter.type === 'property_promotion_parameter' && name)
        this.builder.setFieldType(scope.classIndex, name, type);
      const value = parameter.childForFieldName('default_value');
      if (value) this.visit(value, inner);
    }
    this.useType(returnType, 'REFERENCES', inner);
    if (body) this.visit(body, inner);
  }

  private readAssignment(node: SyntaxNode, scope: BuilderScope): void {
    const left = node.childForFieldName('left');
    const right = node.childForFieldName('right');
    const known = right ? this.valueOf(right, scope) : undefined;
    if (left?.type === 'variable_name' && known) scope.locals.set(left.text.slice(1), known);
    const field = left && thisField(left);
    if (field && known?.kind === 'typed') this.builder.setFieldType(scope.classIndex, field, known.type);
    if (right) this.visit(right, scope);
    if (left && left.type !== 'variable_name') this.visit(left, scope);
  }

  private valueOf(value: SyntaxNode, scope: BuilderScope): Receiver | undefined {
    if (value.type === 'variable_name') return scope.locals.get(value.text.slice(1));
    const shape = this.shapeOf(value, scope);
    if (!shape) return undefined;
    return shape.construct
      ? { kind: 'typed', type: qualifiedCallee(shape) }
      : { kind: 'result', call: shape };
  }

  private readCall(node: SyntaxNode, scope: BuilderScope): void {
    const shape = this.shapeOf(node, scope);
    if (shape) this.builder.addCall(shape, lineOf(node), scope);
    const object = node.childForFieldName('object');
    if (object && object.type !== 'variable_name' && !thisField(object)) this.visit(object, scope);
    const callee = node.childForFieldName('function');
    if (callee && callee.type !== 'name' && callee.type !== 'qualified_name') this.visit(callee, scope);
    const args =
      node.childForFieldName('arguments') ?? node.namedChildren.find((child) => child.type === 'arguments');
    if (args) this.visit(args, scope);
  }

  /** `$this->m()`, `$x->m()`, `Money::zero()`, `self::m()`, `parent::m()`, `f()`, `Bank\f()`, `new Money()`. */
  private shapeOf(node: SyntaxNode, scope: BuilderScope): CallShape | undefined {
    switch (node.type) {
      case 'object_creation_expression': {
        const made = node.namedChildren.find(
          (child) => child.type === 'name' || child.type === 'qualified_name',
        );
        if (!made) return undefined;
        const type =
          made.text === 'static' || made.text === 'self' ? this.ownClass(scope) : dotted(made.text);
        return type ? splitQualified(type, true) : undefined;
      }
      case 'function_call_expression': {
        const callee = node.childForFieldName('function');
        return callee?.type === 'name' || callee?.type === 'qualified_name'
          ? splitQualified(dotted(callee.text))
          : undefined;
      }
      case 'scoped_call_expression': {
        const name = node.childForFieldName('name');
        const scopeNode = node.childForFieldName('scope');
        if (name?.type !== 'name' || !scopeNode) return undefined;
        const written = scopeNode.text.toLowerCase();
        if (written === 'parent') return { callee: name.text, receiver: { kind: 'super' } };
        if (written === 'self' || written === 'static')
          return { callee: name.text, receiver: { kind: 'self' } };
        if (scopeNode.type !== 'name' && scopeNode.type !== 'qualified_name') return undefined;
        return { callee: name.text, receiver: { kind: 'name', name: dotted(scopeNode.text) } };
      }
      case 'member_call_expression':
      case 'nullsafe_member_call_expression': {
        const name = node.childForFieldName('name');
        const object = node.childForFieldName('object');
        if (name?.type !== 'name' || !object) return undefined;
        return { callee: name.text, receiver: this.receiverOf(object, scope) };
      }
      default:
        return undefined;
    }
  }

  private ownClass(scope: BuilderScope): string | undefined {
    return scope.classIndex !== undefined ? this.builder.facts.symbols[scope.classIndex]?.name : undefined;
  }

  private receiverOf(object: SyntaxNode, scope: BuilderScope): Receiver {
    return this.builder.chained(() => {
      if (object.type === 'variable_name') {
        const name = object.text.slice(1);
        return name === 'this' ? { kind: 'self' } : (scope.locals.get(name) ?? { kind: 'unknown' });
      }
      const field = thisField(object);
      if (field) return { kind: 'field', name: field };
      if (object.type === 'parenthesized_expression') {
        const inner = object.namedChild(0);
        return inner ? this.receiverOf(inner, scope) : { kind: 'unknown' };
      }
      const shape = this.shapeOf(object, scope);
      if (!shape) return { kind: 'unknown' };
      return shape.construct
        ? { kind: 'typed', type: qualifiedCallee(shape) }
        : { kind: 'result', call: shape };
    });
  }

  private useType(
    node: SyntaxNode | null,
    relation: 'EXTENDS' | 'IMPLEMENTS' | 'REFERENCES',
    scope: BuilderScope,
  ): void {
    if (!node) return;
    if (node.type === 'name' || node.type === 'qualified_name') {
      if (relation !== 'REFERENCES' || !['self', 'static', 'parent'].includes(node.text.toLowerCase()))
        this.builder.typeUse(dotted(node.text), lineOf(node), relation, scope);
      return;
    }
    this.builder.nested(() => {
      for (const child of node.namedChildren) this.useType(child, relation, scope);
    });
  }
}

/** `Bank\Money` (or `\Bank\Money`) → `Bank.Money`: qualified names join with dots, as everywhere in the graph. */
function dotted(text: string): string {
  return text.replace(/^\\/, '').split('\\').join('.');
}

function splitQualified(name: string, construct = false): CallShape {
  const cut = name.lastIndexOf('.');
  const shape: CallShape =
    cut < 0
      ? { callee: name }
      : { callee: name.slice(cut + 1), receiver: { kind: 'name', name: name.slice(0, cut) } };
  return construct ? { ...shape, construct } : shape;
}

function qualifiedCallee(shape: CallShape): string {
  return shape.receiver?.kind === 'name' ? `${shape.receiver.name}.${shape.callee}` : shape.callee;
}

/** The class a PHP type names when it names one: `Money`, `?Money`, `Bank\Money`; built-ins and unions of two give undefined. */
function phpType(node: SyntaxNode | null): string | undefined {
  if (!node) return undefined;
  switch (node.type) {
    case 'named_type': {
      const name = node.namedChild(0);
      return name ? dotted(name.text) : undefined;
    }
    case 'optional_type':
      return phpType(node.namedChild(0));
    case 'union_type': {
      const named = node.namedChildren.filter((part) => part.type !== 'primitive_type');
      return named.length === 1 ? phpType(named[0] ?? null) : undefined;
    }
    default:
      return undefined;
  }
}

/** A method declared to return `static` or `self` returns its own class. */
function selfType(type: string | undefined, scope: BuilderScope, builder: FactsBuilder): string | undefined {
  if (type !== 'static' && type !== 'self') return type;
  return scope.classIndex !== undefined ? builder.facts.symbols[scope.classIndex]?.name : undefined;
}

function visibility(member: SyntaxNode): string {
  return (
    member.namedChildren.find((child) => child.type === 'visibility_modifier')?.text.toLowerCase() ?? 'public'
  );
}

/** `$this->rate` → `rate`. */
function thisField(node: SyntaxNode): string | undefined {
  if (node.type !== 'member_access_expression' && node.type !== 'nullsafe_member_access_expression')
    return undefined;
  if (node.childForFieldName('object')?.text !== '$this') return undefined;
  const name = node.childForFieldName('name');
  return name?.type === 'name' ? name.text : undefined;
}

/**
 * The file an include names, relative to the including file: a literal (`'lib/x.php'`), or
 * `__DIR__ . '/x.php'` and `dirname(__DIR__) . '/x.php'`, the usual ways of saying "beside me".
 */
function includedPath(node: SyntaxNode | null): string | undefined {
  if (!node) return undefined;
  if (node.type === 'parenthesized_expression') return includedPath(node.namedChild(0));
  const literal = (part: SyntaxNode | null) =>
    part?.type === 'string' || part?.type === 'encapsed_string'
      ? part.namedChildren.every((child) => child.type === 'string_content')
        ? part.text.slice(1, -1)
        : undefined
      : undefined;
  const relative = (path: string) => (/^\.{1,2}\//.test(path) ? path : `./${path.replace(/^\//, '')}`);
  const plain = literal(node);
  if (plain !== undefined) return relative(plain);
  if (node.type !== 'binary_expression') return undefined;
  const left = node.childForFieldName('left');
  const rest = literal(node.childForFieldName('right'));
  if (!left || rest === undefined) return undefined;
  if (left.type === 'name' && left.text === '__DIR__') return relative(rest);
  if (left.type === 'function_call_expression' && left.text.replace(/\s+/g, '') === 'dirname(__DIR__)')
    return `..${rest.startsWith('/') ? '' : '/'}${rest}`;
  return undefined;
}
