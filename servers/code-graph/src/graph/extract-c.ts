import {
  constructShape,
  declaratorName,
  dotted,
  functionDeclarator,
  hasStorage,
  splitName,
  typeName,
} from './c-declarators.js';
import type { CallShape, FileFacts, Receiver } from './facts.js';
import { type BuilderScope, FactsBuilder, fileScope } from './facts-builder.js';
import { lineOf, type SyntaxNode, type SyntaxTree } from './syntax.js';

interface CScope extends BuilderScope {
  /** Whether what is declared here is visible outside the file: not `static`, not in an anonymous namespace, a public member. */
  exported: boolean;
  /** Inside a method: a name that is no local may be a field of the class (`balance_.add(x)`). */
  inMethod: boolean;
}

/** Reads C and C++ trees (`.h` headers are read with the C++ grammar, which reads C declarations too). */
export function extractCFamily(tree: SyntaxTree): FileFacts {
  return new CFamilyReader().read(tree.rootNode);
}

const CLASS_NODES = new Set(['class_specifier', 'struct_specifier', 'union_specifier']);
/** C++ casts look like calls of templates, but call nothing. */
const CASTS = new Set(['static_cast', 'dynamic_cast', 'reinterpret_cast', 'const_cast']);

/**
 * One reader for both grammars: tree-sitter-cpp extends tree-sitter-c, so the C node types are
 * the C++ ones minus classes, namespaces, templates and `new`.
 */
class CFamilyReader {
  private readonly builder = new FactsBuilder();
  /** Namespaces declared in this file, by qualified name: `bank::helper` defined outside them is a function, not a method. */
  private readonly namespaces = new Set<string>();
  /** Classes and structs declared in this file, by qualified name: where `Money::add` defined here finds its `this`. */
  private readonly classes = new Map<string, number>();

  read(root: SyntaxNode): FileFacts {
    this.visitChildren(root, { ...fileScope(), exported: true, inMethod: false });
    return this.builder.facts;
  }

  private visitChildren(node: SyntaxNode, scope: CScope): void {
    for (const child of node.namedChildren) this.visit(child, scope);
  }

  private visit(node: SyntaxNode, scope: CScope, docNode: SyntaxNode = node): void {
    this.builder.nested(() => this.visitNode(node, scope, docNode));
  }

  private visitNode(node: SyntaxNode, scope: CScope, docNode: SyntaxNode): void {
    switch (node.type) {
      case 'comment':
        return;
      case 'preproc_include':
        this.readInclude(node);
        return;
      case 'preproc_def':
        // A macro without a value is a flag or an include guard, not something code uses by name.
        if (node.childForFieldName('value')) this.declareMacro(node, 'constant', scope);
        return;
      case 'preproc_function_def':
        this.declareMacro(node, 'function', scope);
        return;
      case 'function_definition':
        this.readFunction(node, docNode, scope);
        return;
      case 'declaration':
        this.readDeclaration(node, docNode, scope);
        return;
      case 'template_declaration':
        for (const child of node.namedChildren)
          if (child.type !== 'template_parameter_list') this.visit(child, scope, docNode);
        return;
      case 'class_specifier':
      case 'struct_specifier':
      case 'union_specifier':
        this.readClass(node, docNode, scope);
        return;
      case 'enum_specifier':
        this.readEnum(node, docNode, scope);
        return;
      case 'type_definition':
        this.readTypedef(node, docNode, scope);
        return;
      case 'alias_declaration':
        this.declareType(
          node,
          docNode,
          node.childForFieldName('name')?.text,
          node.childForFieldName('type'),
          scope,
        );
        return;
      case 'namespace_definition':
        this.readNamespace(node, docNode, scope);
        return;
      case 'using_declaration':
        this.readUsing(node);
        return;
      case 'call_expression':
        this.readCall(node, scope);
        return;
      case 'new_expression':
        this.readNew(node, scope);
        return;
      default:
        this.visitChildren(node, scope);
    }
  }

  /** `#include "money.h"` → `./money.h` (looked for beside the file first); `<stdio.h>` → `stdio.h`. */
  private readInclude(node: SyntaxNode): void {
    const path = node.childForFieldName('path');
    if (!path) return;
    if (path.type === 'system_lib_string') {
      this.builder.include(path.text.slice(1, -1), lineOf(node));
      return;
    }
    const written = path.type === 'string_literal' ? path.text.slice(1, -1) : undefined;
    if (!written) return;
    this.builder.include(/^\.{0,2}\//.test(written) ? written : `./${written}`, lineOf(node));
  }

  private declareMacro(node: SyntaxNode, kind: 'constant' | 'function', scope: CScope): void {
    const value = node.childForFieldName('value');
    const signature = node.text
      .slice(0, value ? value.startIndex - node.startIndex : undefined)
      .replace(/\s+/g, ' ')
      .trim();
    // The node runs to the end of the line, newline included.
    const endLine = lineOf(node) + node.text.trimEnd().split('\n').length - 1;
    this.builder.declare(
      {
        name: node.childForFieldName('name')?.text ?? '',
        kind,
        node,
        body: null,
        exported: true,
        signature,
        endLine,
      },
      scope,
    );
  }

  private readFunction(node: SyntaxNode, docNode: SyntaxNode, scope: CScope): void {
    const function_ = functionDeclarator(node.childForFieldName('declarator'));
    const nameNode = function_?.childForFieldName('declarator');
    if (!function_ || !nameNode) {
      this.visitChildren(node, scope);
      return;
    }
    const { name, owner } = splitName(nameNode);
    const inClass = this.inClassBody(scope);
    const ownerPrefix = owner.length > 0 ? owner.join('.') : undefined;
    const qualifiedOwner = ownerPrefix && (scope.prefix ? `${scope.prefix}.${ownerPrefix}` : ownerPrefix);
    const ofNamespace =
      qualifiedOwner !== undefined &&
      (this.namespaces.has(qualifiedOwner) || this.namespaces.has(ownerPrefix ?? ''));
    const isMethod = inClass || (ownerPrefix !== undefined && !ofNamespace);
    const body = node.childForFieldName('body');
    const index = this.builder.declare(
      {
        name,
        kind: isMethod ? 'method' : 'function',
        node,
        docNode,
        body,
        exported: scope.exported && (inClass || !hasStorage(node, 'static')),
        returns: typeName(node.childForFieldName('type')),
        ...(ownerPrefix && { memberOf: ownerPrefix }),
      },
      { ...scope, prefix: qualifiedOwner ?? scope.prefix },
    );
    const declaredClass = qualifiedOwner !== undefined ? this.classes.get(qualifiedOwner) : undefined;
    const inner: CScope = {
      ...scope,
      owner: index ?? scope.owner,
      classIndex: inClass ? scope.classIndex : (declaredClass ?? (isMethod ? undefined : scope.classIndex)),
      prefix: qualifiedOwner ?? scope.prefix,
      inFunction: true,
      inMethod: isMethod,
      locals: new Map(scope.locals),
    };
    this.readParameters(function_, inner);
    this.useType(node.childForFieldName('type'), inner);
    for (const child of node.namedChildren)
      if (child.type === 'field_initializer_list') this.visitChildren(child, inner);
    if (body) this.visit(body, inner);
  }

  private inClassBody(scope: CScope): boolean {
    return scope.classIndex !== undefined && scope.owner === scope.classIndex && !scope.inFunction;
  }

  /** Parameters with a named type become typed locals; their types are used by the function. */
  private readParameters(function_: SyntaxNode, scope: CScope): void {
    for (const parameter of function_.childForFieldName('parameters')?.namedChildren ?? []) {
      const type = parameter.childForFieldName('type');
      this.useType(type, scope);
      const name = declaratorName(parameter.childForFieldName('declarator'));
      const named = typeName(type);
      if (name && named) scope.locals.set(name.text, { kind: 'typed', type: named });
      const defaultValue = parameter.childForFieldName('default_value');
      if (defaultValue) this.visit(defaultValue, scope);
    }
  }

  /** A prototype, a global, or a local variable (whose type, when named, types calls through it). */
  private readDeclaration(node: SyntaxNode, docNode: SyntaxNode, scope: CScope): void {
    const type = node.childForFieldName('type');
    const declarators = node.childrenForFieldName('declarator');
    if (type && CLASS_NODES.has(type.type) && type.childForFieldName('body'))
      this.readClass(type, docNode, scope);
    else if (type?.type === 'enum_specifier' && type.childForFieldName('body'))
      this.readEnum(type, docNode, scope);
    // A prototype's types are used by the function it declares, not by the file.
    else if (!declarators.some((declarator) => functionDeclarator(declarator))) this.useType(type, scope);
    const named = typeName(type);
    for (const declarator of declarators) {
      const function_ = functionDeclarator(declarator);
      if (function_) {
        if (!scope.inFunction) this.declarePrototype(node, docNode, function_, scope);
        continue;
      }
      const nameNode = declaratorName(declarator);
      const value = declarator.type === 'init_declarator' ? declarator.childForFieldName('value') : null;
      if (scope.inFunction && nameNode?.type === 'identifier') {
        const known = this.knownValue(named, value, scope);
        if (known) scope.locals.set(nameNode.text, known);
      }
      if (
        !scope.inFunction &&
        nameNode &&
        (nameNode.type === 'identifier' || nameNode.type === 'qualified_identifier')
      ) {
        const constant = node.namedChildren.some(
          (child) => child.type === 'type_qualifier' && child.text.includes('const'),
        );
        this.builder.declare(
          {
            name: splitName(nameNode).name,
            kind: constant ? 'constant' : 'variable',
            node,
            docNode,
            body: null,
            exported: scope.exported && !hasStorage(node, 'static'),
          },
          scope,
        );
      }
      if (value) this.readInitialiser(named, declarator, value, scope);
    }
  }

  /** What a local holds, when the syntax says: its declared type, what `new` made, or a call's result. */
  private knownValue(
    type: string | undefined,
    value: SyntaxNode | null,
    scope: CScope,
  ): Receiver | undefined {
    if (type) return { kind: 'typed', type };
    if (value?.type === 'new_expression') {
      const made = typeName(value.childForFieldName('type'));
      return made ? { kind: 'typed', type: made } : undefined;
    }
    if (value?.type === 'call_expression') {
      const call = this.shapeOf(value, scope);
      return call ? { kind: 'result', call } : undefined;
    }
    return undefined;
  }

  /**
   * `Money n(3);` and `Money n{3};` construct a Money; `struct account a = {…}` fills in a struct
   * and calls nothing. Any other initialiser is code to read.
   */
  private readInitialiser(
    type: string | undefined,
    declarator: SyntaxNode,
    value: SyntaxNode,
    scope: CScope,
  ): void {
    const assigned = declarator.children.some((child) => child.type === '=');
    if (type && !assigned && (value.type === 'argument_list' || value.type === 'initializer_list')) {
      this.builder.addCall(constructShape(type), lineOf(value), scope);
    }
    this.visit(value, scope);
  }

  private declarePrototype(
    node: SyntaxNode,
    docNode: SyntaxNode,
    function_: SyntaxNode,
    scope: CScope,
  ): void {
    const nameNode = function_.childForFieldName('declarator');
    if (!nameNode) return;
    const inClass = this.inClassBody(scope);
    const index = this.builder.declare(
      {
        name: splitName(nameNode).name,
        kind: inClass ? 'method' : 'function',
        node,
        docNode,
        body: null,
        // `static` on a member makes it the class's; outside a class it keeps it in the file.
        exported: scope.exported && (inClass || !hasStorage(node, 'static')),
        returns: typeName(node.childForFieldName('type')),
        declaration: true,
      },
      scope,
    );
    const inner: CScope = { ...scope, owner: index ?? scope.owner, inFunction: true, locals: new Map() };
    this.readParameters(function_, inner);
    this.useType(node.childForFieldName('type'), inner);
  }

  private readClass(
    node: SyntaxNode,
    docNode: SyntaxNode,
    scope: CScope,
    givenName?: string,
  ): number | undefined {
    const body = node.childForFieldName('body');
    if (!body) return undefined;
    const nameNode = node.childForFieldName('name');
    const name = givenName ?? (nameNode ? splitName(nameNode).name : undefined);
    if (!name) {
      // An anonymous struct or union inside another: its members are the outer one's.
      this.readMembers(body, scope, node.type !== 'class_specifier');
      return undefined;
    }
    const kind = node.type === 'class_specifier' ? 'class' : 'struct';
    const index = this.builder.declare(
      { name, kind, node, docNode, body, exported: scope.exported && !scope.inFunction },
      scope,
    );
    const inner: CScope = { ...scope, ...this.builder.inside(index, scope, true), inMethod: false };
    if (index !== undefined) this.classes.set(inner.prefix, index);
    for (const child of node.namedChildren) {
      if (child.type !== 'base_class_clause') continue;
      for (const base of child.namedChildren) {
        const type = typeName(base);
        if (type) this.builder.typeUse(type, lineOf(base), 'EXTENDS', inner);
      }
    }
    this.readMembers(body, inner, node.type !== 'class_specifier');
    return index;
  }

  /** A class body: access sections, fields (whose types type `this->x` calls), methods and nested types. */
  private readMembers(body: SyntaxNode, scope: CScope, publicByDefault: boolean): void {
    const visible = scope.exported;
    let member: CScope = { ...scope, exported: visible && publicByDefault };
    for (const child of body.namedChildren) {
      switch (child.type) {
        case 'access_specifier':
          member = { ...member, exported: visible && child.text.startsWith('public') };
          break;
        case 'field_declaration':
        case 'declaration':
          this.readMember(child, member);
          break;
        case 'comment':
        case 'friend_declaration':
          break;
        default:
          this.visit(child, member);
      }
    }
  }

  private readMember(node: SyntaxNode, scope: CScope): void {
    const type = node.childForFieldName('type');
    if (
      type &&
      (CLASS_NODES.has(type.type) || type.type === 'enum_specifier') &&
      type.childForFieldName('body')
    ) {
      this.visit(type, scope, node);
    } else {
      this.useType(type, scope);
    }
    const named = typeName(type);
    for (const declarator of node.childrenForFieldName('declarator')) {
      const function_ = functionDeclarator(declarator);
      if (function_) {
        this.declarePrototype(node, node, function_, scope);
        continue;
      }
      const field = declaratorName(declarator);
      if (field) this.builder.setFieldType(scope.classIndex, field.text, named);
    }
    const value = node.childForFieldName('default_value');
    if (value) this.visit(value, scope);
  }

  private readEnum(node: SyntaxNode, docNode: SyntaxNode, scope: CScope, givenName?: string): void {
    const body = node.childForFieldName('body');
    const name = givenName ?? node.childForFieldName('name')?.text;
    if (!body || !name) return;
    this.builder.declare(
      { name, kind: 'enum', node, docNode, body, exported: scope.exported && !scope.inFunction },
      scope,
    );
  }

  /** `typedef struct money {…} money_t;` declares the struct and the alias; an anonymous struct takes the alias's name. */
  private readTypedef(node: SyntaxNode, docNode: SyntaxNode, scope: CScope): void {
    const type = node.childForFieldName('type');
    const names = node
      .childrenForFieldName('declarator')
      .map((declarator) => declaratorName(declarator)?.text)
      .filter((name): name is string => Boolean(name));
    const defines = type?.childForFieldName('body') ? type : undefined;
    if (defines && !defines.childForFieldName('name')) {
      const [first, ...rest] = names;
      if (defines.type === 'enum_specifier') this.readEnum(defines, docNode, scope, first);
      else this.readClass(defines, docNode, scope, first);
      for (const name of rest) this.declareType(node, docNode, name, type, scope);
      return;
    }
    if (defines) this.visit(defines, scope, docNode);
    for (const name of names) this.declareType(node, docNode, name, type, scope);
  }

  private declareType(
    node: SyntaxNode,
    docNode: SyntaxNode,
    name: string | undefined,
    type: SyntaxNode | null,
    scope: CScope,
  ): void {
    if (!name) return;
    const index = this.builder.declare(
      { name, kind: 'type', node, docNode, body: null, exported: scope.exported && !scope.inFunction },
      scope,
    );
    this.useType(type, { ...scope, owner: index ?? scope.owner });
  }

  private readNamespace(node: SyntaxNode, docNode: SyntaxNode, scope: CScope): void {
    const body = node.childForFieldName('body');
    const nameNode = node.childForFieldName('name');
    if (!nameNode) {
      // An anonymous namespace gives internal linkage, like `static`.
      if (body) this.visitChildren(body, { ...scope, exported: false });
      return;
    }
    const name = nameNode.text.replace(/\s+/g, '').split('::').join('.');
    const index = this.builder.declare(
      { name, kind: 'module', node, docNode, body, exported: scope.exported },
      scope,
    );
    const inner: CScope = { ...scope, ...this.builder.inside(index, scope, false) };
    this.namespaces.add(inner.prefix);
    if (body) this.visitChildren(body, inner);
  }

  /** `using namespace bank;` opens a namespace for the whole file. */
  private readUsing(node: SyntaxNode): void {
    if (!/^using\s+namespace\b/.test(node.text)) return;
    const named = node.namedChildren.find(
      (child) =>
        child.type === 'identifier' ||
        child.type === 'qualified_identifier' ||
        child.type === 'namespace_identifier',
    );
    if (!named) return;
    const facts = this.builder.facts;
    facts.usingNamespaces = [...(facts.usingNamespaces ?? []), dotted(named.text)];
  }

  /** Records the class types a type expression names as used by the scope's owner. */
  private useType(node: SyntaxNode | null, scope: CScope): void {
    if (!node) return;
    this.builder.nested(() => {
      switch (node.type) {
        case 'type_identifier':
        case 'qualified_identifier':
        case 'struct_specifier':
        case 'class_specifier':
        case 'union_specifier':
        case 'enum_specifier': {
          const type = typeName(node);
          if (type) this.builder.typeUse(type, lineOf(node), 'REFERENCES', scope);
          if (node.type !== 'qualified_identifier') return;
          break;
        }
        case 'template_type':
          this.useType(node.childForFieldName('name'), scope);
          this.useType(node.childForFieldName('arguments'), scope);
          return;
      }
      for (const child of node.namedChildren) this.useType(child, scope);
    });
  }

  private readCall(node: SyntaxNode, scope: CScope): void {
    const shape = this.shapeOf(node, scope);
    if (shape) this.builder.addCall(shape, lineOf(node), scope);
    const callee = node.childForFieldName('function');
    if (callee?.type === 'field_expression') {
      const object = callee.childForFieldName('argument');
      if (object && object.type !== 'this' && object.type !== 'identifier') this.visit(object, scope);
    } else if (callee && !['identifier', 'qualified_identifier', 'template_function'].includes(callee.type)) {
      this.visit(callee, scope);
    }
    const args = node.childForFieldName('arguments');
    if (args) this.visit(args, scope);
  }

  private readNew(node: SyntaxNode, scope: CScope): void {
    const made = typeName(node.childForFieldName('type'));
    if (made) this.builder.addCall(constructShape(made), lineOf(node), scope);
    for (const field of ['placement', 'arguments', 'declarator']) {
      const part = node.childForFieldName(field);
      if (part) this.visit(part, scope);
    }
  }

  /** `f()`, `ns::f()`, `Money::zero()`, `x.m()`, `p->m()` as a CallShape; undefined for calls through pointers. */
  private shapeOf(node: SyntaxNode, scope: CScope): CallShape | undefined {
    let callee = node.childForFieldName('function');
    if (callee?.type === 'template_function') callee = callee.childForFieldName('name');
    if (!callee) return undefined;
    if (callee.type === 'identifier') return CASTS.has(callee.text) ? undefined : { callee: callee.text };
    if (callee.type === 'qualified_identifier') {
      const { name, owner } = splitName(callee);
      return owner.length > 0
        ? { callee: name, receiver: { kind: 'name', name: owner.join('.') } }
        : { callee: name };
    }
    if (callee.type !== 'field_expression') return undefined;
    const field = callee.childForFieldName('field');
    const object = callee.childForFieldName('argument');
    if (!field || !object) return undefined;
    const name = field.type === 'template_method' ? field.childForFieldName('name')?.text : field.text;
    return name ? { callee: name, receiver: this.receiverOf(object, scope) } : undefined;
  }

  private receiverOf(object: SyntaxNode, scope: CScope): Receiver {
    return this.builder.chained(() => this.describeReceiver(object, scope));
  }

  private describeReceiver(object: SyntaxNode, scope: CScope): Receiver {
    switch (object.type) {
      case 'this':
        return { kind: 'self' };
      case 'identifier':
        return (
          scope.locals.get(object.text) ??
          (scope.inMethod ? { kind: 'field', name: object.text } : { kind: 'name', name: object.text })
        );
      case 'field_expression': {
        const field = object.childForFieldName('field');
        if (object.childForFieldName('argument')?.type === 'this' && field)
          return { kind: 'field', name: field.text };
        return { kind: 'unknown' };
      }
      case 'call_expression': {
        const call = this.shapeOf(object, scope);
        return call ? { kind: 'result', call } : { kind: 'unknown' };
      }
      case 'new_expression': {
        const made = typeName(object.childForFieldName('type'));
        return made ? { kind: 'typed', type: made } : { kind: 'unknown' };
      }
      case 'parenthesized_expression':
      case 'pointer_expression': {
        const inner = object.childForFieldName('argument') ?? object.namedChild(0);
        return inner ? this.receiverOf(inner, scope) : { kind: 'unknown' };
      }
      default:
        return { kind: 'unknown' };
    }
  }
}
