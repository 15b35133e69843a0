import { constructionOf, forEachNamedType, type TypeReading, typeNamed } from './extract-shared-types.js';
import type { CallShape, FileFacts, ImportFact, Receiver, SymbolKind } from './facts.js';
import { type BuilderScope, FactsBuilder, fileScope } from './facts-builder.js';
import { pathOf, RustPaths } from './rust-paths.js';
import { lineOf, type SyntaxNode, type SyntaxTree } from './syntax.js';

interface RustScope extends BuilderScope {
  /** What `self` and `Self` are: the type of the impl block, or the trait being declared. */
  selfType?: string;
  /** The inline modules (`mod tests { … }`) the walk is in, outermost first. */
  inline: string[];
  /** Whether items declared here can be reached from outside: `pub` all the way up. */
  visible: boolean;
  /** In an impl block for a type this file does not declare: the type, as written. */
  implOf?: string;
}

/** Pointers that call through to what they hold: `b.add(…)` on a `Box<Money>` calls Money's add. */
const POINTERS: ReadonlySet<string> = new Set(['Box', 'Rc', 'Arc', 'Cow']);
/**
 * What a function returning `Result<Money, E>` or `Option<Money>` is taken to give: the value
 * its callers reach with `?`, `unwrap()` or `expect()`, which read as the call itself.
 */
const RESULTS: ReadonlySet<string> = new Set([...POINTERS, 'Result', 'Option']);
/** Methods that hand back (a view of) their receiver: `a.clone().add(b)` is Money's add. */
const SEE_THROUGH_METHODS = new Set([
  'unwrap',
  'expect',
  'clone',
  'borrow',
  'borrow_mut',
  'as_ref',
  'as_mut',
  'to_owned',
]);
/** The prelude's enum constructors, which are values rather than calls into code. */
const PRELUDE_VALUES = new Set(['Some', 'Ok', 'Err']);
const TYPE_ITEMS = new Set(['struct_item', 'enum_item', 'union_item', 'trait_item', 'type_item']);

/**
 * Reads Rust trees: items with their `pub` visibility, methods of `impl` blocks under their
 * type (or, when the type is in another file, with the type they belong to), `impl Trait for
 * Type` as IMPLEMENTS, `use` and `mod` as imports, calls, struct expressions and type uses.
 * Paths are written dotted in calls and types (`crate::money::Money` → `crate.money.Money`).
 */
export function extractRust(tree: SyntaxTree): FileFacts {
  return new RustReader().read(tree.rootNode);
}

class RustReader {
  private readonly builder = new FactsBuilder();
  /** Types this file declares, by qualified name: where the methods of their impl blocks go. */
  private readonly types = new Map<string, number>();
  /** What `use` and `mod` bind at the top of the file, and paths as seen from its module. */
  private readonly paths = new RustPaths();

  read(root: SyntaxNode): FileFacts {
    for (const item of root.namedChildren) {
      const name = item.childForFieldName('name')?.text;
      if (item.type === 'mod_item' && name) this.paths.bound.set(name, `self::${name}`);
    }
    this.readItems(root.namedChildren, { ...fileScope(), inline: [], visible: true });
    return this.builder.facts;
  }

  private visit(node: SyntaxNode, scope: RustScope): void {
    this.builder.nested(() => this.visitNode(node, scope));
  }

  private visitChildren(node: SyntaxNode, scope: RustScope): void {
    for (const child of node.namedChildren) this.visit(child, scope);
  }

  /** Types and modules first, so that an impl block above its type still puts methods under it. */
  private readItems(items: SyntaxNode[], scope: RustScope): void {
    for (const item of items) {
      if (TYPE_ITEMS.has(item.type) || (item.type === 'mod_item' && item.childForFieldName('body'))) {
        this.builder.nested(() => this.readItem(item, scope));
      }
    }
    for (const item of items) {
      if (!TYPE_ITEMS.has(item.type) && !(item.type === 'mod_item' && item.childForFieldName('body'))) {
        this.visit(item, scope);
      }
    }
  }

  private visitNode(node: SyntaxNode, scope: RustScope): void {
    switch (node.type) {
      case 'line_comment':
      case 'block_comment':
      case 'attribute_item':
      case 'inner_attribute_item':
      case 'macro_definition':
        return;
      case 'mod_item':
      case 'struct_item':
      case 'enum_item':
      case 'union_item':
      case 'trait_item':
      case 'type_item':
        this.readItem(node, scope);
        return;
      case 'use_declaration':
        this.readUse(node, scope);
        return;
      case 'function_item':
      case 'function_signature_item':
        this.readFunction(node, scope, scope.inFunction ? undefined : 'function');
        return;
      case 'impl_item':
        this.readImpl(node, scope);
        return;
      case 'const_item':
      case 'static_item':
        this.readValue(node, scope);
        return;
      case 'let_declaration':
        this.readLet(node, scope);
        return;
      case 'let_condition':
      case 'match_arm':
      case 'for_expression':
        this.unknownBindings(node.childForFieldName('pattern'), scope);
        this.visitChildren(node, scope);
        return;
      case 'closure_expression':
        this.readClosure(node, scope);
        return;
      case 'call_expression':
        this.readCall(node, scope);
        return;
      case 'struct_expression':
        this.readStructExpression(node, scope);
        return;
      case 'type_cast_expression':
        this.references(node.childForFieldName('type'), scope);
        this.visitChildren(node, scope);
        return;
      default:
        this.visitChildren(node, scope);
    }
  }

  /** Where a declaration's doc comment is looked for: above the attributes that precede it. */
  private docNodeOf(item: SyntaxNode): SyntaxNode {
    let first = item;
    while (first.previousNamedSibling?.type === 'attribute_item') first = first.previousNamedSibling;
    return first;
  }

  private isPub(item: SyntaxNode): boolean {
    return item.namedChildren.some((child) => child.type === 'visibility_modifier' && child.text === 'pub');
  }

  private readItem(item: SyntaxNode, scope: RustScope): void {
    const name = item.childForFieldName('name')?.text;
    if (!name) return;
    if (item.type === 'mod_item' && !item.childForFieldName('body')) {
      this.readModuleFile(item, name, scope);
      return;
    }
    const kind: Exclude<SymbolKind, 'file'> =
      item.type === 'mod_item'
        ? 'module'
        : item.type === 'trait_item'
          ? 'interface'
          : item.type === 'enum_item'
            ? 'enum'
            : item.type === 'type_item'
              ? 'type'
              : 'struct';
    const body = item.childForFieldName('body');
    const exported = this.isPub(item) && scope.visible;
    const index = this.builder.declare(
      { name, kind, node: item, docNode: this.docNodeOf(item), body, exported },
      scope,
    );
    if (index === undefined) return;
    const inner: RustScope = {
      ...scope,
      ...this.builder.inside(index, scope, kind !== 'module'),
      visible: exported,
    };
    const qualifiedName = this.builder.facts.symbols[index]?.qualifiedName ?? name;
    if (kind === 'module') {
      this.readItems(body?.namedChildren ?? [], { ...inner, inline: [...scope.inline, name] });
      return;
    }
    this.types.set(qualifiedName, index);
    inner.selfType = name;
    this.references(item.childForFieldName('type_parameters'), inner);
    if (kind === 'interface') {
      for (const bound of item.childForFieldName('bounds')?.namedChildren ?? []) {
        const base = typeNamed(bound);
        if (base) this.builder.typeUse(base, lineOf(bound), 'EXTENDS', inner);
      }
      for (const member of body?.namedChildren ?? []) this.readMember(member, inner, exported);
      return;
    }
    if (kind === 'type') {
      this.references(item.childForFieldName('type'), inner);
      return;
    }
    for (const field of body?.descendantsOfType('field_declaration') ?? []) {
      const fieldName = field.childForFieldName('name')?.text;
      const typeNode = field.childForFieldName('type');
      if (fieldName && kind === 'struct') {
        this.builder.setFieldType(
          index,
          fieldName,
          typeNamed(typeNode, { transparent: POINTERS, self: name }),
        );
      }
      this.references(typeNode, inner);
    }
    if (body?.type === 'ordered_field_declaration_list') {
      // A tuple struct's fields are `self.0`, `self.1`, ….
      body.childrenForFieldName('type').forEach((typeNode, position) => {
        this.builder.setFieldType(index, String(position), typeNamed(typeNode, { transparent: POINTERS }));
        this.references(typeNode, inner);
      });
    }
  }

  /** `mod money;` binds the module in money.rs (or money/mod.rs) beside this one. */
  private readModuleFile(item: SyntaxNode, name: string, scope: RustScope): void {
    const fact: ImportFact = {
      specifier: ['self', ...scope.inline, name].join('::'),
      line: lineOf(item),
      bindings: [{ local: name }],
    };
    if (this.isPub(item)) fact.reexport = true;
    this.builder.facts.imports.push(fact);
  }

  /** A function or method of a trait, or of an impl block. */
  private readMember(member: SyntaxNode, scope: RustScope, exported: boolean): void {
    if (member.type === 'function_item' || member.type === 'function_signature_item') {
      this.readFunction(member, scope, 'method', exported);
    } else if (member.type === 'const_item') {
      this.readValue(member, scope, exported);
    } else if (member.type !== 'line_comment' && member.type !== 'block_comment') {
      this.visit(member, scope);
    }
  }

  /**
   * `impl Money { … }` puts its functions under Money when this file declares it; otherwise they
   * are `Money.new` with Money named as their owner. `impl Rate for Money` is also an
   * IMPLEMENTS edge from Money.
   */
  private readImpl(node: SyntaxNode, scope: RustScope): void {
    const typeNode = node.childForFieldName('type');
    const written = typeNamed(typeNode);
    const traitNode = node.childForFieldName('trait');
    if (!written) {
      this.visitChildren(node, scope);
      return;
    }
    const name = written.slice(written.lastIndexOf('.') + 1);
    const qualifiedName = scope.prefix ? `${scope.prefix}.${name}` : name;
    const parent = written === name ? this.types.get(qualifiedName) : undefined;
    const owner = parent !== undefined ? this.builder.facts.symbols[parent] : undefined;
    const inner: RustScope = {
      ...scope,
      owner: parent,
      classIndex: parent,
      prefix: qualifiedName,
      selfType: written,
      locals: new Map(scope.locals),
    };
    const trait = typeNamed(traitNode);
    if (trait) this.builder.typeUse(trait, lineOf(traitNode ?? node), 'IMPLEMENTS', inner);
    this.references(traitNode, inner);
    this.references(node.childForFieldName('type_parameters'), inner);
    // A trait's methods are as visible as the type; an inherent method needs its own `pub`.
    const typeVisible = owner?.exported ?? scope.visible;
    for (const member of node.childForFieldName('body')?.namedChildren ?? []) {
      const exported = trait ? typeVisible : this.isPub(member) && typeVisible;
      this.readMember(member, parent === undefined ? { ...inner, implOf: written } : inner, exported);
    }
  }

  private readFunction(
    node: SyntaxNode,
    scope: RustScope,
    kind: 'function' | 'method' | undefined,
    exported = this.isPub(node) && scope.visible,
  ): void {
    const name = node.childForFieldName('name')?.text;
    const body = node.childForFieldName('body');
    const reading: TypeReading = { transparent: RESULTS, ...(scope.selfType && { self: scope.selfType }) };
    const index =
      name && kind
        ? this.builder.declare(
            {
              name,
              kind,
              node,
              docNode: this.docNodeOf(node),
              body,
              exported,
              returns: typeNamed(node.childForFieldName('return_type'), reading),
              ...(scope.implOf && { memberOf: scope.implOf }),
            },
            scope,
          )
        : undefined;
    const inner: RustScope = {
      ...scope,
      owner: index ?? scope.owner,
      inFunction: true,
      implOf: undefined,
      locals: new Map(scope.locals),
    };
    this.readParameters(node.childForFieldName('parameters'), inner, scope);
    this.references(node.childForFieldName('return_type'), { ...scope, owner: index ?? scope.owner });
    if (body) this.visit(body, inner);
  }

  private readParameters(list: SyntaxNode | null, inner: RustScope, outer: RustScope): void {
    for (const parameter of list?.namedChildren ?? []) {
      if (parameter.type === 'identifier') {
        inner.locals.set(parameter.text, { kind: 'unknown' });
        continue;
      }
      if (parameter.type !== 'parameter') continue;
      const typeNode = parameter.childForFieldName('type');
      const pattern = parameter.childForFieldName('pattern');
      const type = typeNamed(typeNode, this.reading(outer));
      if (pattern?.type === 'identifier') {
        inner.locals.set(pattern.text, type ? { kind: 'typed', type } : { kind: 'unknown' });
      } else {
        this.unknownBindings(pattern, inner);
      }
      this.references(typeNode, { ...outer, owner: inner.owner });
    }
  }

  private reading(scope: RustScope): TypeReading {
    return { transparent: POINTERS, ...(scope.selfType && { self: scope.selfType }) };
  }

  private readValue(node: SyntaxNode, scope: RustScope, exported = this.isPub(node) && scope.visible): void {
    const name = node.childForFieldName('name')?.text;
    const index = name
      ? this.builder.declare(
          {
            name,
            kind: node.type === 'const_item' ? 'constant' : 'variable',
            node,
            docNode: this.docNodeOf(node),
            body: null,
            exported,
          },
          scope,
        )
      : undefined;
    const inner = { ...scope, owner: index ?? scope.owner };
    this.references(node.childForFieldName('type'), inner);
    const value = node.childForFieldName('value');
    if (value) this.visit(value, inner);
  }

  private readLet(node: SyntaxNode, scope: RustScope): void {
    const pattern = node.childForFieldName('pattern');
    const typeNode = node.childForFieldName('type');
    const value = node.childForFieldName('value');
    if (pattern?.type === 'identifier') {
      const type = typeNamed(typeNode, this.reading(scope));
      const known: Receiver = type
        ? { kind: 'typed', type }
        : value
          ? this.receiverOf(value, scope)
          : { kind: 'unknown' };
      if (value) this.visit(value, scope);
      scope.locals.set(pattern.text, known);
    } else {
      if (value) this.visit(value, scope);
      this.unknownBindings(pattern, scope);
    }
    this.references(typeNode, scope);
    const alternative = node.childForFieldName('alternative');
    if (alternative) this.visit(alternative, scope);
  }

  /** Names a pattern binds (`Some(x)`, `(a, b)`, `Money { cents }`) whose type the syntax leaves open. */
  private unknownBindings(pattern: SyntaxNode | null, scope: RustScope): void {
    if (!pattern) return;
    const names =
      pattern.type === 'identifier'
        ? [pattern]
        : pattern.descendantsOfType(['identifier', 'shorthand_field_identifier']).filter((name) => {
            // `Some(x)` and `Currency::Eur` name a variant, not a binding.
            const parent = name.parent;
            return parent?.type !== 'scoped_identifier' && parent?.childForFieldName('type')?.id !== name.id;
          });
    for (const name of names) scope.locals.set(name.text, { kind: 'unknown' });
  }

  private readClosure(node: SyntaxNode, scope: RustScope): void {
    const inner: RustScope = { ...scope, locals: new Map(scope.locals) };
    this.readParameters(node.childForFieldName('parameters'), inner, scope);
    const body = node.childForFieldName('body');
    if (body) this.visit(body, inner);
  }

  /** A path in code (`crate::money::helper`, `Money::new`) as the dotted name the resolver reads. */
  /** `use` paths, made relative to this file's module: `super::` out of an inline module is `self::`. */
  private readUse(node: SyntaxNode, scope: RustScope): void {
    this.builder.facts.imports.push(...this.paths.importsOf(node, scope.inline, this.isPub(node)));
  }

  private dotted(path: SyntaxNode, scope: RustScope): string | undefined {
    const segments = pathOf(path);
    if (segments.length === 0 || segments.some((segment) => !/^[\p{L}_$][\p{L}\p{N}_]*$/u.test(segment))) {
      return undefined;
    }
    if (segments[0] === 'Self' && scope.selfType) return [scope.selfType, ...segments.slice(1)].join('.');
    const first = segments[0] as string;
    if (first === 'crate' || first === 'self' || first === 'super' || first === '$crate') {
      return this.paths.absolute(segments, scope.inline).join('.');
    }
    return segments.join('.');
  }

  private readCall(node: SyntaxNode, scope: RustScope): void {
    const shape = this.shapeOf(node, scope);
    if (shape) this.builder.addCall(shape, lineOf(node), scope);
    let callee = node.childForFieldName('function');
    if (callee?.type === 'generic_function') callee = callee.childForFieldName('function');
    if (callee?.type === 'field_expression') {
      const value = callee.childForFieldName('value');
      if (value) this.visit(value, scope);
    } else if (callee && callee.type !== 'identifier' && callee.type !== 'scoped_identifier') {
      this.visit(callee, scope);
    }
    const args = node.childForFieldName('arguments');
    if (args) this.visit(args, scope);
  }

  private shapeOf(node: SyntaxNode, scope: RustScope): CallShape | undefined {
    let callee = node.childForFieldName('function');
    if (callee?.type === 'generic_function') callee = callee.childForFieldName('function');
    if (!callee) return undefined;
    if (callee.type === 'identifier')
      return PRELUDE_VALUES.has(callee.text) ? undefined : { callee: callee.text };
    if (callee.type === 'field_expression') {
      const value = callee.childForFieldName('value');
      const field = callee.childForFieldName('field')?.text;
      return value && field ? { callee: field, receiver: this.receiverOf(value, scope) } : undefined;
    }
    if (callee.type !== 'scoped_identifier') return undefined;
    const name = callee.childForFieldName('name')?.text;
    const path = callee.childForFieldName('path');
    if (!name) return undefined;
    if (!path) return { callee: name };
    const receiver = this.pathReceiver(path, scope);
    return receiver ? { callee: name, receiver } : undefined;
  }

  /** What `Money` in `Money::new()` is: Self's type, a generic type's base, or a path to look up. */
  private pathReceiver(path: SyntaxNode, scope: RustScope): Receiver | undefined {
    if (path.type === 'generic_type') {
      const base = typeNamed(path, this.reading(scope));
      return base ? { kind: 'name', name: base } : undefined;
    }
    const name = this.dotted(path, scope);
    return name ? { kind: 'name', name } : undefined;
  }

  /** `Money { cents: 5 }` makes a Money: a call of the type, as `new X()` is elsewhere. */
  private readStructExpression(node: SyntaxNode, scope: RustScope): void {
    const nameNode = node.childForFieldName('name');
    const written = nameNode
      ? (this.dotted(nameNode, scope) ?? typeNamed(nameNode, this.reading(scope)))
      : undefined;
    if (written) this.builder.addCall(constructionOf(written), lineOf(node), scope);
    const body = node.childForFieldName('body');
    if (body) this.visit(body, scope);
  }

  private receiverOf(node: SyntaxNode, scope: RustScope): Receiver {
    return this.builder.chained(() => this.describeReceiver(node, scope));
  }

  private describeReceiver(node: SyntaxNode, scope: RustScope): Receiver {
    switch (node.type) {
      case 'self':
        return scope.selfType ? { kind: 'typed', type: scope.selfType } : { kind: 'unknown' };
      case 'identifier':
        return scope.locals.get(node.text) ?? { kind: 'name', name: node.text };
      case 'scoped_identifier': {
        const name = this.dotted(node, scope);
        return name ? { kind: 'name', name } : { kind: 'unknown' };
      }
      case 'field_expression': {
        const value = node.childForFieldName('value');
        const field = node.childForFieldName('field')?.text;
        if (!value || !field) return { kind: 'unknown' };
        const of = this.receiverOf(value, scope);
        return of.kind === 'unknown' || of.kind === 'name'
          ? { kind: 'unknown' }
          : { kind: 'member', of, name: field };
      }
      case 'call_expression': {
        const callee = node.childForFieldName('function');
        const field =
          callee?.type === 'field_expression' ? callee.childForFieldName('field')?.text : undefined;
        const value = callee?.childForFieldName('value');
        if (field && value && SEE_THROUGH_METHODS.has(field)) return this.receiverOf(value, scope);
        const call = this.shapeOf(node, scope);
        return call ? { kind: 'result', call } : { kind: 'unknown' };
      }
      case 'struct_expression': {
        const nameNode = node.childForFieldName('name');
        const type = nameNode
          ? (this.dotted(nameNode, scope) ?? typeNamed(nameNode, this.reading(scope)))
          : undefined;
        return type ? { kind: 'typed', type } : { kind: 'unknown' };
      }
      case 'try_expression':
      case 'await_expression':
      case 'reference_expression':
      case 'unary_expression':
      case 'parenthesized_expression': {
        const inner = node.childForFieldName('value') ?? node.namedChild(0);
        return inner ? this.receiverOf(inner, scope) : { kind: 'unknown' };
      }
      default:
        return { kind: 'unknown' };
    }
  }

  /** Every named type in a type expression, as a REFERENCES use by the scope's owner. */
  private references(node: SyntaxNode | null | undefined, scope: RustScope): void {
    forEachNamedType(node, this.reading(scope), (type, named) =>
      this.builder.typeUse(type, lineOf(named), 'REFERENCES', scope),
    );
  }
}
