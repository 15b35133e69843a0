import { leadingComment } from './doc-comments.js';
import { constructionOf, forEachNamedType, typeNamed } from './extract-shared-types.js';
import type { CallShape, FileFacts, ImportFact, Receiver, SymbolKind } from './facts.js';
import { type BuilderScope, FactsBuilder, fileScope } from './facts-builder.js';
import { lineOf, type SyntaxNode, type SyntaxTree, signatureOf } from './syntax.js';

/**
 * Go's predeclared functions and types: they build values (`make`, `new`, `append`), inspect
 * them (`len`) or convert them (`int64(x)`), and are never calls into code of the root.
 */
const BUILTINS = new Set([
  'any',
  'bool',
  'byte',
  'complex128',
  'complex64',
  'error',
  'float32',
  'float64',
  'int',
  'int16',
  'int32',
  'int64',
  'int8',
  'rune',
  'string',
  'uint',
  'uint16',
  'uint32',
  'uint64',
  'uint8',
  'uintptr',
  'append',
  'cap',
  'clear',
  'close',
  'complex',
  'copy',
  'delete',
  'imag',
  'len',
  'make',
  'max',
  'min',
  'new',
  'panic',
  'print',
  'println',
  'real',
  'recover',
]);

/** Go exports what starts with an upper-case letter. */
function isExported(name: string): boolean {
  return /^\p{Lu}/u.test(name);
}

/**
 * Reads Go trees: the package clause, types, functions, methods under their receiver type, calls
 * and type uses. The Go entry also claims go.mod, which the Go grammar cannot read: a tree
 * without a package clause is read as one.
 */
export function extractGo(tree: SyntaxTree, source: string): FileFacts {
  const root = tree.rootNode;
  if (!root.namedChildren.some((child) => child.type === 'package_clause')) return goModuleFacts(source);
  return new GoReader().read(root);
}

/**
 * A go.mod file's `module` directive, as a module symbol: its path is how Go import paths map
 * to folders under the root.
 */
function goModuleFacts(source: string): FileFacts {
  const facts: FileFacts = { symbols: [], imports: [], calls: [], typeUses: [], fields: {} };
  const match = /^[ \t]*module[ \t]+(?:"([^"\n]+)"|([^\s/][^\s]*))/m.exec(source);
  const path = match?.[1] ?? match?.[2];
  if (!match || !path) return facts;
  const line = source.slice(0, match.index + match[0].length).split('\n').length;
  facts.symbols.push({
    name: path,
    qualifiedName: path,
    kind: 'module',
    startLine: line,
    endLine: line,
    signature: `module ${path}`,
    doc: '',
    exported: true,
  });
  return facts;
}

class GoReader {
  private readonly builder = new FactsBuilder();
  /** The types this file declares, by name: where their methods go. */
  private readonly types = new Map<string, number>();

  read(root: SyntaxNode): FileFacts {
    const top = fileScope();
    // Types first, so that a method declared above its receiver's type still goes under it, and
    // package variables whose type the syntax gives, so that functions above them know it too.
    for (const child of root.namedChildren) {
      if (child.type === 'package_clause') this.readPackage(child);
      else if (child.type === 'type_declaration') this.readTypeDeclaration(child, top);
      else if (child.type === 'var_declaration') this.knowVariables(child, top);
    }
    for (const child of root.namedChildren) {
      if (child.type !== 'package_clause' && child.type !== 'type_declaration') this.visit(child, top);
    }
    return this.builder.facts;
  }

  private visit(node: SyntaxNode, scope: BuilderScope): void {
    this.builder.nested(() => this.visitNode(node, scope));
  }

  private visitChildren(node: SyntaxNode, scope: BuilderScope): void {
    for (const child of node.namedChildren) this.visit(child, scope);
  }

  private visitNode(node: SyntaxNode, scope: BuilderScope): void {
    switch (node.type) {
      case 'comment':
        return;
      case 'import_declaration':
        for (const spec of node.descendantsOfType('import_spec')) this.readImport(spec);
        return;
      case 'function_declaration':
        this.readFunction(node, scope);
        return;
      case 'method_declaration':
        this.readMethod(node, scope);
        return;
      case 'type_declaration':
        this.readTypeDeclaration(node, scope);
        return;
      case 'const_declaration':
      case 'var_declaration':
        this.readValues(node, scope);
        return;
      case 'short_var_declaration':
        this.readShortVariables(node, scope);
        return;
      case 'range_clause':
        this.readRange(node, scope);
        return;
      case 'type_switch_statement':
        this.readTypeSwitch(node, scope);
        return;
      case 'func_literal':
        this.readCallable(node, { ...scope, locals: new Map(scope.locals) });
        return;
      case 'call_expression':
        this.readCall(node, scope);
        return;
      case 'composite_literal':
        this.readComposite(node, scope);
        return;
      case 'type_assertion_expression':
      case 'type_conversion_expression':
        this.references(node.childForFieldName('type'), scope);
        this.visitChildren(node, scope);
        return;
      default:
        this.visitChildren(node, scope);
    }
  }

  /**
   * A Go package is its folder, declared again by every file; its symbol is the clause that
   * carries the package doc, which Go's convention puts in one file. `package main` is a command,
   * not a package anyone imports, and would only shadow `func main`.
   */
  private readPackage(clause: SyntaxNode): void {
    const name = clause.namedChildren.find((child) => child.type === 'package_identifier')?.text;
    const doc = leadingComment(clause);
    if (name && name !== 'main' && doc) {
      this.builder.declare(
        { name, kind: 'module', node: clause, body: null, exported: true, doc },
        fileScope(),
      );
    }
  }

  private readImport(spec: SyntaxNode): void {
    const path = spec.childForFieldName('path');
    const specifier = path?.text.slice(1, -1);
    if (!specifier) return;
    const name = spec.childForFieldName('name');
    const fact: ImportFact = { specifier, line: lineOf(spec), bindings: [] };
    if (name?.type === 'dot') fact.star = true;
    else if (name?.type !== 'blank_identifier')
      fact.bindings.push({ local: name?.text ?? packageNameOf(specifier) });
    this.builder.facts.imports.push(fact);
  }

  private readTypeDeclaration(declaration: SyntaxNode, scope: BuilderScope): void {
    const specs = declaration.namedChildren.filter(
      (child) => child.type === 'type_spec' || child.type === 'type_alias',
    );
    for (const spec of specs) {
      // `type A struct{…}` is documented above `type`; each spec of a `type ( … )` group above itself.
      this.readType(spec, specs.length === 1 ? declaration : spec, scope);
    }
  }

  private readType(spec: SyntaxNode, node: SyntaxNode, scope: BuilderScope): void {
    const name = spec.childForFieldName('name')?.text;
    const value = spec.childForFieldName('type');
    if (!name || !value || this.types.has(name)) return;
    const kind: Exclude<SymbolKind, 'file'> =
      value.type === 'struct_type' ? 'struct' : value.type === 'interface_type' ? 'interface' : 'type';
    const body =
      value.type === 'struct_type'
        ? value.namedChildren.find((child) => child.type === 'field_declaration_list')
        : value.type === 'interface_type'
          ? value.namedChild(0)
          : null;
    const index = this.builder.declare(
      {
        name,
        kind,
        node,
        body: body ?? null,
        exported: isExported(name),
        signature: signatureOf(node, body ?? null),
      },
      scope,
    );
    if (index === undefined) return;
    this.types.set(name, index);
    const inner = this.builder.inside(index, scope, true);
    this.references(spec.childForFieldName('type_parameters'), inner);
    if (value.type === 'struct_type') this.readFields(body, index, inner);
    else if (value.type === 'interface_type') this.readInterface(value, inner);
    else this.references(value, inner);
  }

  /** Field types, for receivers like `a.balance`; an embedded type is a field of its name, and a base. */
  private readFields(list: SyntaxNode | null | undefined, index: number, scope: BuilderScope): void {
    for (const field of list?.namedChildren ?? []) {
      if (field.type !== 'field_declaration') continue;
      const typeNode = field.childForFieldName('type');
      const type = typeNamed(typeNode);
      const names = field.childrenForFieldName('name');
      if (names.length === 0 && type) {
        this.builder.setFieldType(index, type.slice(type.lastIndexOf('.') + 1), type);
        this.builder.typeUse(type, lineOf(field), 'EXTENDS', scope);
        continue;
      }
      for (const fieldName of names) this.builder.setFieldType(index, fieldName.text, type);
      this.references(typeNode, scope);
    }
  }

  private readInterface(value: SyntaxNode, scope: BuilderScope): void {
    for (const member of value.namedChildren) {
      if (member.type === 'method_elem') {
        const name = member.childForFieldName('name')?.text;
        if (!name) continue;
        const index = this.builder.declare(
          {
            name,
            kind: 'method',
            node: member,
            body: null,
            exported: isExported(name),
            returns: resultType(member.childForFieldName('result')),
          },
          scope,
        );
        const inner = this.builder.inside(index, scope, false);
        this.references(member.childForFieldName('parameters'), inner);
        this.references(member.childForFieldName('result'), inner);
      } else if (member.type === 'type_elem') {
        // An embedded interface: its methods are this one's.
        for (const part of member.namedChildren) {
          const base = typeNamed(part);
          if (base) this.builder.typeUse(base, lineOf(part), 'EXTENDS', scope);
        }
      }
    }
  }

  private readFunction(node: SyntaxNode, scope: BuilderScope): void {
    const name = node.childForFieldName('name')?.text;
    if (!name) return;
    const body = node.childForFieldName('body');
    const index = this.builder.declare(
      {
        name,
        kind: 'function',
        node,
        body,
        exported: isExported(name),
        returns: resultType(node.childForFieldName('result')),
      },
      scope,
    );
    this.readCallable(node, { ...scope, owner: index ?? scope.owner, locals: new Map(scope.locals) });
  }

  /**
   * `func (a *Account) Deposit(…)` is `Account.Deposit`, under Account when this file declares
   * it; a method in another file than its type says which type it belongs to (`memberOf`). The
   * receiver is a parameter typed Account.
   */
  private readMethod(node: SyntaxNode, scope: BuilderScope): void {
    const name = node.childForFieldName('name')?.text;
    const receiver = node
      .childForFieldName('receiver')
      ?.namedChildren.find((child) => child.type === 'parameter_declaration');
    const owner = typeNamed(receiver?.childForFieldName('type'));
    if (!name || !owner) return;
    const parent = this.types.get(owner);
    const index = this.builder.declare(
      {
        name,
        kind: 'method',
        node,
        body: node.childForFieldName('body'),
        exported: isExported(name),
        returns: resultType(node.childForFieldName('result')),
        ...(parent === undefined && { memberOf: owner }),
      },
      { ...scope, owner: parent, prefix: owner },
    );
    const inner: BuilderScope = {
      ...scope,
      owner: index ?? scope.owner,
      classIndex: parent,
      locals: new Map(scope.locals),
    };
    const receiverName = receiver?.childForFieldName('name')?.text;
    if (receiverName) inner.locals.set(receiverName, { kind: 'typed', type: owner });
    this.readCallable(node, inner);
  }

  /** Parameters and named results (typed locals), their type uses, then the body. */
  private readCallable(node: SyntaxNode, scope: BuilderScope): void {
    const inner: BuilderScope = { ...scope, inFunction: true };
    for (const list of [node.childForFieldName('parameters'), node.childForFieldName('result')]) {
      if (list?.type !== 'parameter_list') {
        this.references(list, scope);
        continue;
      }
      for (const parameter of list.namedChildren) {
        const typeNode = parameter.childForFieldName('type');
        const type = parameter.type === 'parameter_declaration' ? typeNamed(typeNode) : undefined;
        for (const parameterName of parameter.childrenForFieldName('name')) {
          inner.locals.set(parameterName.text, type ? { kind: 'typed', type } : { kind: 'unknown' });
        }
        this.references(typeNode, scope);
      }
    }
    this.references(node.childForFieldName('type_parameters'), scope);
    const body = node.childForFieldName('body');
    if (body) this.visit(body, inner);
  }

  /** Package variables whose type the syntax gives, known to every function of the file. */
  private knowVariables(declaration: SyntaxNode, scope: BuilderScope): void {
    for (const spec of specsOf(declaration)) this.bindSpec(spec, scope);
  }

  /** `const`/`var` blocks: package-level names become symbols; local ones, typed locals. */
  private readValues(declaration: SyntaxNode, scope: BuilderScope): void {
    const specs = specsOf(declaration);
    for (const spec of specs) {
      if (scope.inFunction) {
        this.bindSpec(spec, scope);
        this.references(spec.childForFieldName('type'), scope);
        const value = spec.childForFieldName('value');
        if (value) this.visit(value, scope);
        continue;
      }
      let owner = scope.owner;
      for (const nameNode of spec.childrenForFieldName('name')) {
        const index = this.builder.declare(
          {
            name: nameNode.text,
            kind: spec.type === 'const_spec' ? 'constant' : 'variable',
            node: spec,
            docNode: specs.length === 1 ? declaration : spec,
            body: null,
            exported: isExported(nameNode.text),
          },
          scope,
        );
        owner ??= index;
      }
      const inner = { ...scope, owner };
      this.references(spec.childForFieldName('type'), inner);
      const value = spec.childForFieldName('value');
      if (value) this.visit(value, inner);
    }
  }

  private bindSpec(spec: SyntaxNode, scope: BuilderScope): void {
    const declared = typeNamed(spec.childForFieldName('type'));
    const values = spec.childForFieldName('value')?.namedChildren ?? [];
    spec.childrenForFieldName('name').forEach((nameNode, position) => {
      const known: Receiver = declared
        ? { kind: 'typed', type: declared }
        : this.valueOf(values, position, scope);
      if (nameNode.text !== '_') scope.locals.set(nameNode.text, known);
    });
  }

  private readShortVariables(node: SyntaxNode, scope: BuilderScope): void {
    const right = node.childForFieldName('right');
    const values = right?.namedChildren ?? [];
    node.childForFieldName('left')?.namedChildren.forEach((target, position) => {
      if (target.type === 'identifier' && target.text !== '_')
        scope.locals.set(target.text, this.valueOf(values, position, scope));
    });
    if (right) this.visit(right, scope);
  }

  /**
   * What the name at `position` of `a, b := …` holds. One call on the right gives its first
   * result to the first name (`m, err := money.Parse(s)`); the others are unknown.
   */
  private valueOf(values: SyntaxNode[], position: number, scope: BuilderScope): Receiver {
    const value = values.length === 1 && position > 0 ? undefined : values[position];
    return value ? this.receiverOf(value, scope) : { kind: 'unknown' };
  }

  /** `for k, v := range xs`: the syntax does not give the element type. */
  private readRange(node: SyntaxNode, scope: BuilderScope): void {
    for (const name of node.childForFieldName('left')?.namedChildren ?? []) {
      if (name.type === 'identifier') scope.locals.set(name.text, { kind: 'unknown' });
    }
    this.visitChildren(node, scope);
  }

  /** `switch v := x.(type) { case Money: … }`: in a case of one type, v is of that type. */
  private readTypeSwitch(node: SyntaxNode, scope: BuilderScope): void {
    const alias = node.childForFieldName('alias')?.namedChild(0)?.text;
    for (const child of node.namedChildren) {
      if (child.type !== 'type_case') {
        this.visit(child, scope);
        continue;
      }
      const types = child.childrenForFieldName('type');
      const only = types.length === 1 ? typeNamed(types[0]) : undefined;
      const inner = { ...scope, locals: new Map(scope.locals) };
      if (alias) inner.locals.set(alias, only ? { kind: 'typed', type: only } : { kind: 'unknown' });
      for (const type of types) this.references(type, scope);
      const typeIds = new Set(types.map((type) => type.id));
      for (const part of child.namedChildren) if (!typeIds.has(part.id)) this.visit(part, inner);
    }
  }

  private readCall(node: SyntaxNode, scope: BuilderScope): void {
    const callee = node.childForFieldName('function');
    const shape = this.shapeOf(node, scope);
    if (shape) this.builder.addCall(shape, lineOf(node), scope);
    if (callee?.type === 'selector_expression') {
      const operand = callee.childForFieldName('operand');
      if (operand) this.visit(operand, scope);
    } else if (callee && callee.type !== 'identifier') {
      this.visit(callee, scope);
    }
    const args = node.childForFieldName('arguments');
    if (args) this.visit(args, scope);
  }

  private shapeOf(node: SyntaxNode, scope: BuilderScope): CallShape | undefined {
    const callee = node.childForFieldName('function');
    if (callee?.type === 'identifier') return BUILTINS.has(callee.text) ? undefined : { callee: callee.text };
    if (callee?.type !== 'selector_expression') return undefined;
    const operand = callee.childForFieldName('operand');
    const field = callee.childForFieldName('field');
    return operand && field ? { callee: field.text, receiver: this.receiverOf(operand, scope) } : undefined;
  }

  /** `Money{…}` and `&money.Money{…}` make a Money: a call of the type, as `new X()` is elsewhere. */
  private readComposite(node: SyntaxNode, scope: BuilderScope): void {
    const type = typeNamed(node.childForFieldName('type'));
    if (type) this.builder.addCall(constructionOf(type), lineOf(node), scope);
    const body = node.childForFieldName('body');
    if (body) this.visit(body, scope);
  }

  private receiverOf(node: SyntaxNode, scope: BuilderScope): Receiver {
    return this.builder.chained(() => this.describeReceiver(node, scope));
  }

  private describeReceiver(node: SyntaxNode, scope: BuilderScope): Receiver {
    switch (node.type) {
      case 'identifier':
        return scope.locals.get(node.text) ?? { kind: 'name', name: node.text };
      case 'selector_expression': {
        const operand = node.childForFieldName('operand');
        const field = node.childForFieldName('field')?.text;
        if (!operand || !field) return { kind: 'unknown' };
        const of = this.receiverOf(operand, scope);
        // `pkg.Var` stays a name for the resolver to look up; a field of a known value is a member.
        if (of.kind === 'name') return { kind: 'name', name: `${of.name}.${field}` };
        return of.kind === 'unknown' ? of : { kind: 'member', of, name: field };
      }
      case 'call_expression': {
        const callee = node.childForFieldName('function');
        if (callee?.text === 'new') {
          const type = typeNamed(node.childForFieldName('arguments')?.namedChild(0));
          return type ? { kind: 'typed', type } : { kind: 'unknown' };
        }
        const call = this.shapeOf(node, scope);
        return call ? { kind: 'result', call } : { kind: 'unknown' };
      }
      case 'composite_literal':
      case 'type_assertion_expression':
      case 'type_conversion_expression': {
        const type = typeNamed(node.childForFieldName('type'));
        return type ? { kind: 'typed', type } : { kind: 'unknown' };
      }
      case 'unary_expression':
      case 'parenthesized_expression': {
        const inner = node.childForFieldName('operand') ?? node.namedChild(0);
        return inner ? this.receiverOf(inner, scope) : { kind: 'unknown' };
      }
      default:
        return { kind: 'unknown' };
    }
  }

  /** Every named type in a type expression, as a REFERENCES use by the scope's owner. */
  private references(node: SyntaxNode | null | undefined, scope: BuilderScope): void {
    forEachNamedType(node, {}, (type, named) =>
      this.builder.typeUse(type, lineOf(named), 'REFERENCES', scope),
    );
  }
}

/** The specs of a `const`/`var` declaration, grouped in parentheses or not. */
function specsOf(declaration: SyntaxNode): SyntaxNode[] {
  return declaration.namedChildren
    .flatMap((child) => (child.type === 'var_spec_list' ? child.namedChildren : [child]))
    .filter((child) => child.type === 'var_spec' || child.type === 'const_spec');
}

/** The type of a function's only or first result: `(*Money, error)` → Money. */
function resultType(result: SyntaxNode | null): string | undefined {
  if (result?.type !== 'parameter_list') return typeNamed(result);
  const first = result.namedChildren.find((child) => child.type === 'parameter_declaration');
  return typeNamed(first?.childForFieldName('type'));
}

/**
 * The name an import binds when it gives none: by convention the last element of its path,
 * without a major-version suffix (`…/yaml/v3` → yaml) or a `go-` prefix (`go-cmp` → cmp).
 */
function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  let last = parts.at(-1) ?? specifier;
  if (/^v\d+$/.test(last) && parts.length > 1) last = parts.at(-2) ?? last;
  return last
    .replace(/^go-/, '')
    .replace(/[.-].*$/, '')
    .replace(/\W/g, '_');
}
