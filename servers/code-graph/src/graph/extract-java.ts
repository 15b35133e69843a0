import { type ClassScope, classScope, memberReceiver, nameReceiver } from './extract-shared-classes.js';
import { constructionOf, forEachNamedType, typeNamed } from './extract-shared-types.js';
import type { CallShape, FileFacts, ImportFact, Receiver, SymbolKind } from './facts.js';
import { FactsBuilder } from './facts-builder.js';
import { lineOf, type SyntaxNode, type SyntaxTree } from './syntax.js';

const TYPE_DECLARATIONS = new Map<string, Exclude<SymbolKind, 'file'>>([
  ['class_declaration', 'class'],
  ['record_declaration', 'class'],
  ['interface_declaration', 'interface'],
  ['annotation_type_declaration', 'interface'],
  ['enum_declaration', 'enum'],
]);

/**
 * Reads Java trees: the package, classes, interfaces, enums and records with their members,
 * `public` as the export flag, imports (single-type, on-demand and static), extends and
 * implements, calls on `this`, typed parameters, locals and fields, and `new X()`.
 */
export function extractJava(tree: SyntaxTree): FileFacts {
  return new JavaReader().read(tree.rootNode);
}

class JavaReader {
  private readonly builder = new FactsBuilder();
  /** Names bound by `import static a.b.C.m`: a bare call `m()` calls them, not a method of this class. */
  private readonly staticImports = new Set<string>();

  read(root: SyntaxNode): FileFacts {
    const top = classScope();
    for (const child of root.namedChildren) {
      if (child.type === 'package_declaration') this.readPackage(child);
      else if (child.type === 'import_declaration') this.readImport(child);
    }
    for (const child of root.namedChildren) {
      if (child.type !== 'package_declaration' && child.type !== 'import_declaration') this.visit(child, top);
    }
    return this.builder.facts;
  }

  private visit(node: SyntaxNode, scope: ClassScope): void {
    this.builder.nested(() => this.visitNode(node, scope));
  }

  private visitChildren(node: SyntaxNode, scope: ClassScope): void {
    for (const child of node.namedChildren) this.visit(child, scope);
  }

  private visitNode(node: SyntaxNode, scope: ClassScope): void {
    const kind = TYPE_DECLARATIONS.get(node.type);
    if (kind) {
      this.readType(node, kind, scope);
      return;
    }
    switch (node.type) {
      case 'line_comment':
      case 'block_comment':
        return;
      case 'method_invocation':
        this.readCall(node, scope);
        return;
      case 'object_creation_expression':
        this.readNew(node, scope);
        return;
      case 'local_variable_declaration':
        this.readLocals(node, scope);
        return;
      case 'enhanced_for_statement':
      case 'catch_formal_parameter':
      case 'resource':
      case 'instanceof_expression':
        this.readBinding(node, scope);
        return;
      case 'lambda_expression':
        this.readLambda(node, scope);
        return;
      case 'cast_expression':
        this.references(node.childForFieldName('type'), scope);
        this.visitChildren(node, scope);
        return;
      case 'explicit_constructor_invocation': {
        const args = node.childForFieldName('arguments');
        if (args) this.visit(args, scope);
        return;
      }
      default:
        this.visitChildren(node, scope);
    }
  }

  private readPackage(node: SyntaxNode): void {
    const written = node.namedChildren.find(
      (child) => child.type !== 'annotation' && child.type !== 'marker_annotation',
    );
    const path = written?.text.split('.') ?? [];
    const name = path.pop();
    if (!name) return;
    this.builder.declare(
      { name, kind: 'module', node, body: null, exported: true },
      { ...classScope(), prefix: path.join('.') },
    );
  }

  /**
   * `import a.b.C` binds C from what its longest known prefix turns out to be (a package, or an
   * outer class for a nested one); `import a.b.*` is every name of a.b; `import static a.b.C.m`
   * binds the member m of C.
   */
  private readImport(node: SyntaxNode): void {
    const path = node.namedChildren.find(
      (child) => child.type === 'scoped_identifier' || child.type === 'identifier',
    );
    if (!path) return;
    const fact: ImportFact = { specifier: path.text, line: lineOf(node), bindings: [] };
    if (node.namedChildren.some((child) => child.type === 'asterisk')) fact.star = true;
    else {
      const name = path.text.slice(path.text.lastIndexOf('.') + 1);
      fact.bindings.push({ imported: name, local: name });
      if (node.children.some((child) => child.type === 'static')) this.staticImports.add(name);
    }
    this.builder.facts.imports.push(fact);
  }

  private modifiers(node: SyntaxNode): Set<string> {
    const modifiers = node.namedChildren.find((child) => child.type === 'modifiers');
    return new Set(modifiers?.children.filter((child) => !child.isNamed).map((child) => child.type));
  }

  /** Whether a member is reachable from outside: `public`, or any non-private member of an interface. */
  private isExported(node: SyntaxNode, scope: ClassScope): boolean {
    const modifiers = this.modifiers(node);
    const own = scope.inInterface ? !modifiers.has('private') : modifiers.has('public');
    return own && scope.visible;
  }

  private readType(node: SyntaxNode, kind: Exclude<SymbolKind, 'file'>, scope: ClassScope): void {
    const name = node.childForFieldName('name')?.text;
    const body = node.childForFieldName('body');
    if (!name) return;
    const exported = this.isExported(node, scope);
    const index = this.builder.declare({ name, kind, node, body, exported }, scope);
    if (index === undefined) {
      // A local or anonymous class: its code belongs to the enclosing method.
      if (body) this.visit(body, scope);
      return;
    }
    const inner: ClassScope = {
      ...scope,
      ...this.builder.inside(index, scope, true),
      visible: exported,
      inInterface: kind === 'interface',
      fields: new Set(scope.fields),
    };
    this.readHeritage(node, inner);
    this.references(node.childForFieldName('type_parameters'), inner);
    for (const component of node.childForFieldName('parameters')?.namedChildren ?? []) {
      // A record's components are its fields.
      this.knowField(component.childForFieldName('name')?.text, component.childForFieldName('type'), inner);
      this.references(component.childForFieldName('type'), inner);
    }
    const members = (body?.namedChildren ?? []).flatMap((member) =>
      member.type === 'enum_body_declarations' ? member.namedChildren : [member],
    );
    for (const member of members) {
      if (member.type !== 'field_declaration' && member.type !== 'constant_declaration') continue;
      for (const declarator of member.childrenForFieldName('declarator')) {
        this.knowField(declarator.childForFieldName('name')?.text, member.childForFieldName('type'), inner);
      }
    }
    for (const member of members) this.readMember(member, inner);
  }

  private knowField(name: string | undefined, type: SyntaxNode | null, scope: ClassScope): void {
    if (!name) return;
    scope.fields.add(name);
    this.builder.setFieldType(scope.classIndex, name, typeNamed(type));
  }

  private readHeritage(node: SyntaxNode, scope: ClassScope): void {
    const superclass = node.childForFieldName('superclass');
    for (const type of superclass?.namedChildren ?? []) this.base(type, 'EXTENDS', scope);
    const interfaces =
      node.childForFieldName('interfaces') ??
      node.namedChildren.find((child) => child.type === 'extends_interfaces');
    const relation = node.type === 'interface_declaration' ? 'EXTENDS' : 'IMPLEMENTS';
    for (const list of interfaces?.namedChildren ?? []) {
      for (const type of list.namedChildren) this.base(type, relation, scope);
    }
  }

  private base(type: SyntaxNode, relation: 'EXTENDS' | 'IMPLEMENTS', scope: ClassScope): void {
    const name = typeNamed(type);
    if (name) this.builder.typeUse(name, lineOf(type), relation, scope);
    if (type.type === 'generic_type') this.references(type.namedChild(1), scope);
  }

  private readMember(member: SyntaxNode, scope: ClassScope): void {
    switch (member.type) {
      case 'method_declaration':
      case 'constructor_declaration':
      case 'compact_constructor_declaration':
        this.readMethod(member, scope);
        return;
      case 'field_declaration':
      case 'constant_declaration':
        this.readField(member, scope);
        return;
      case 'enum_constant': {
        const args = member.childForFieldName('arguments');
        if (args) this.visit(args, scope);
        const body = member.childForFieldName('body');
        if (body) this.visit(body, { ...scope, inFunction: true });
        return;
      }
      default:
        this.visit(member, scope);
    }
  }

  private readMethod(node: SyntaxNode, scope: ClassScope): void {
    // Constructors are named for their class, as the syntax writes them.
    const name = node.childForFieldName('name')?.text;
    if (!name) return;
    const body = node.childForFieldName('body');
    const typeNode = node.childForFieldName('type');
    const index = this.builder.declare(
      {
        name,
        kind: 'method',
        node,
        body,
        exported: this.isExported(node, scope),
        returns: typeNamed(typeNode),
      },
      scope,
    );
    const owner = { ...scope, owner: index ?? scope.owner };
    const inner: ClassScope = { ...owner, inFunction: true, locals: new Map(scope.locals) };
    this.readParameters(node.childForFieldName('parameters'), inner, owner);
    this.references(typeNode, owner);
    this.references(node.childForFieldName('type_parameters'), owner);
    if (body) this.visit(body, inner);
  }

  /** Formal parameters are typed locals; varargs (arrays) and inferred lambda parameters are not. */
  private readParameters(list: SyntaxNode | null, inner: ClassScope, owner: ClassScope): void {
    for (const parameter of list?.namedChildren ?? []) {
      const declarator = parameter.namedChildren.find((child) => child.type === 'variable_declarator');
      const name =
        parameter.type === 'identifier'
          ? parameter.text
          : (parameter.childForFieldName('name') ?? declarator?.childForFieldName('name'))?.text;
      if (!name) continue;
      const typeNode = parameter.childForFieldName('type');
      const type = parameter.type === 'formal_parameter' ? typeNamed(typeNode) : undefined;
      inner.locals.set(name, type ? { kind: 'typed', type } : { kind: 'unknown' });
      this.references(typeNode, owner);
    }
  }

  /** `static final` fields are constants, symbols of their class; every field's initialiser is code of it. */
  private readField(node: SyntaxNode, scope: ClassScope): void {
    const modifiers = this.modifiers(node);
    const constant =
      node.type === 'constant_declaration' || (modifiers.has('static') && modifiers.has('final'));
    this.references(node.childForFieldName('type'), scope);
    for (const declarator of node.childrenForFieldName('declarator')) {
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
              },
              scope,
            )
          : undefined;
      const value = declarator.childForFieldName('value');
      if (value) this.visit(value, { ...scope, owner: index ?? scope.owner });
    }
  }

  private readLocals(node: SyntaxNode, scope: ClassScope): void {
    const typeNode = node.childForFieldName('type');
    const type = typeNamed(typeNode);
    this.references(typeNode, scope);
    for (const declarator of node.childrenForFieldName('declarator')) {
      const name = declarator.childForFieldName('name')?.text;
      const value = declarator.childForFieldName('value');
      if (value) this.visit(value, scope);
      if (!name) continue;
      const known: Receiver = type
        ? { kind: 'typed', type }
        : value
          ? this.receiverOf(value, scope)
          : { kind: 'unknown' };
      scope.locals.set(name, known);
    }
  }

  /** `for (Money m : all)`, `catch (E e)`, `try (R r = …)`, `x instanceof Money m`: a typed name. */
  private readBinding(node: SyntaxNode, scope: ClassScope): void {
    const typeNode =
      node.childForFieldName('type') ??
      node.childForFieldName('right') ??
      node.namedChildren.find((child) => child.type === 'catch_type')?.namedChild(0);
    const name = node.childForFieldName('name')?.text;
    const type = typeNamed(typeNode);
    this.references(typeNode, scope);
    if (name) scope.locals.set(name, type ? { kind: 'typed', type } : { kind: 'unknown' });
    this.visitChildren(node, scope);
  }

  private readLambda(node: SyntaxNode, scope: ClassScope): void {
    const inner: ClassScope = { ...scope, locals: new Map(scope.locals) };
    const parameters = node.childForFieldName('parameters');
    if (parameters?.type === 'identifier') inner.locals.set(parameters.text, { kind: 'unknown' });
    else this.readParameters(parameters, inner, scope);
    const body = node.childForFieldName('body');
    if (body) this.visit(body, inner);
  }

  private readCall(node: SyntaxNode, scope: ClassScope): void {
    const shape = this.shapeOf(node, scope);
    if (shape) this.builder.addCall(shape, lineOf(node), scope);
    const object = node.childForFieldName('object');
    if (object) this.visit(object, scope);
    const args = node.childForFieldName('arguments');
    if (args) this.visit(args, scope);
  }

  private shapeOf(node: SyntaxNode, scope: ClassScope): CallShape | undefined {
    const name = node.childForFieldName('name')?.text;
    if (!name) return undefined;
    const object = node.childForFieldName('object');
    if (object) return { callee: name, receiver: this.receiverOf(object, scope) };
    // A bare call is a method of this class (or a base), unless a static import binds the name.
    if (this.staticImports.has(name) || scope.classIndex === undefined) return { callee: name };
    return { callee: name, receiver: { kind: 'self' } };
  }

  /** `new Money(…)` calls the class; an anonymous class body is code of the enclosing method. */
  private readNew(node: SyntaxNode, scope: ClassScope): void {
    const shape = this.newShape(node);
    if (shape) this.builder.addCall(shape, lineOf(node), scope);
    this.references(node.childForFieldName('type_arguments'), scope);
    const args = node.childForFieldName('arguments');
    if (args) this.visit(args, scope);
    const body = node.namedChildren.find((child) => child.type === 'class_body');
    if (body) this.visit(body, { ...scope, inFunction: true });
  }

  private newShape(node: SyntaxNode): CallShape | undefined {
    const type = typeNamed(node.childForFieldName('type'));
    return type ? constructionOf(type) : undefined;
  }

  private receiverOf(node: SyntaxNode, scope: ClassScope): Receiver {
    return this.builder.chained(() => this.describeReceiver(node, scope));
  }

  private describeReceiver(node: SyntaxNode, scope: ClassScope): Receiver {
    switch (node.type) {
      case 'this':
        return { kind: 'self' };
      case 'super':
        return { kind: 'super' };
      case 'identifier':
        return nameReceiver(node.text, scope);
      case 'field_access': {
        const object = node.childForFieldName('object');
        const field = node.childForFieldName('field')?.text;
        if (!object || !field) return { kind: 'unknown' };
        if (object.type === 'this') return { kind: 'field', name: field };
        const of =
          object.type === 'identifier'
            ? nameReceiver(object.text, scope, true)
            : this.receiverOf(object, scope);
        return memberReceiver(of, field);
      }
      case 'method_invocation': {
        const call = this.shapeOf(node, scope);
        return call ? { kind: 'result', call } : { kind: 'unknown' };
      }
      case 'object_creation_expression': {
        const call = this.newShape(node);
        return call ? { kind: 'result', call } : { kind: 'unknown' };
      }
      case 'cast_expression': {
        const type = typeNamed(node.childForFieldName('type'));
        return type ? { kind: 'typed', type } : { kind: 'unknown' };
      }
      case 'parenthesized_expression': {
        const inner = node.namedChild(0);
        return inner ? this.receiverOf(inner, scope) : { kind: 'unknown' };
      }
      default:
        return { kind: 'unknown' };
    }
  }

  private references(node: SyntaxNode | null | undefined, scope: ClassScope): void {
    forEachNamedType(node, {}, (type, named) =>
      this.builder.typeUse(type, lineOf(named), 'REFERENCES', scope),
    );
  }
}
