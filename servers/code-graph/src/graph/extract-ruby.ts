import type { CallShape, FileFacts, Receiver } from './facts.js';
import { type BuilderScope, FactsBuilder, fileScope } from './facts-builder.js';
import { lineOf, type SyntaxNode, type SyntaxTree } from './syntax.js';

interface RubyScope extends BuilderScope {
  /** Whether methods defined from here on are public (`private` with no arguments switches it off). */
  public: boolean;
  /** The method being defined, for `super`. */
  method?: string;
}

const IMPORTS = new Set(['require', 'require_relative', 'load']);
const MIXINS = new Set(['include', 'extend', 'prepend']);
const VISIBILITY = new Set(['public', 'private', 'protected', 'module_function']);
/** `attr_reader :cents` defines the method `cents`; `attr_writer` defines `cents=`. A Map: a call may have any name, `constructor` included. */
const ACCESSORS: ReadonlyMap<string, string[]> = new Map([
  ['attr_reader', ['']],
  ['attr_writer', ['=']],
  ['attr_accessor', ['', '=']],
]);

/** Reads Ruby trees: modules, classes, methods, requires, mixins and calls through typed receivers. */
export function extractRuby(tree: SyntaxTree): FileFacts {
  return new RubyReader().read(tree.rootNode);
}

class RubyReader {
  private readonly builder = new FactsBuilder();

  read(root: SyntaxNode): FileFacts {
    this.visitChildren(root, { ...fileScope(), public: true });
    return this.builder.facts;
  }

  private visitChildren(node: SyntaxNode, scope: RubyScope): void {
    for (const child of node.namedChildren) this.visit(child, scope);
  }

  private visit(node: SyntaxNode, scope: RubyScope): void {
    this.builder.nested(() => this.visitNode(node, scope));
  }

  private visitNode(node: SyntaxNode, scope: RubyScope): void {
    switch (node.type) {
      case 'comment':
        return;
      case 'module':
        this.readContainer(node, scope, 'module');
        return;
      case 'class':
        this.readContainer(node, scope, 'class');
        return;
      case 'singleton_class':
        // `class << self`: what it defines belongs to the class itself.
        this.readBody(node.childForFieldName('body'), { ...scope, public: true });
        return;
      case 'method':
      case 'singleton_method':
        this.readMethod(node, scope);
        return;
      case 'assignment':
        this.readAssignment(node, scope);
        return;
      case 'call':
        this.readCall(node, scope);
        return;
      case 'super':
        if (scope.method)
          this.builder.addCall({ callee: scope.method, receiver: { kind: 'super' } }, lineOf(node), scope);
        return;
      default:
        this.visitChildren(node, scope);
    }
  }

  /** Statements of a class, module or file body, where `private` alone changes what follows. */
  private readBody(body: SyntaxNode | null, scope: RubyScope): void {
    if (!body) return;
    let current = scope;
    for (const statement of body.namedChildren) {
      if (statement.type === 'identifier' && VISIBILITY.has(statement.text)) {
        current = { ...current, public: statement.text === 'public' };
        continue;
      }
      this.visit(statement, current);
    }
  }

  private readContainer(node: SyntaxNode, scope: RubyScope, kind: 'module' | 'class'): void {
    const nameNode = node.childForFieldName('name');
    if (!nameNode) return;
    // `class Bank::Savings` lives in Bank wherever it is written.
    const path = constantPath(nameNode);
    const name = path.at(-1) ?? '';
    const prefix = [scope.prefix, ...path.slice(0, -1)].filter(Boolean).join('.');
    const body = node.childForFieldName('body');
    const index = this.builder.declare(
      { name, kind, node, body, exported: true, signature: firstLine(node) },
      { ...scope, prefix },
    );
    const inner: RubyScope = {
      ...scope,
      ...this.builder.inside(index, { ...scope, prefix }, kind === 'class'),
      public: true,
      inFunction: scope.inFunction,
    };
    const superclass = node.childForFieldName('superclass')?.namedChild(0);
    const base = superclass && constantName(superclass);
    if (base) this.builder.typeUse(base, lineOf(superclass), 'EXTENDS', inner);
    this.readBody(body, inner);
  }

  private readMethod(node: SyntaxNode, scope: RubyScope): void {
    const name = node.childForFieldName('name')?.text ?? '';
    const inContainer = scope.owner !== undefined && !scope.inFunction;
    const body = node.childForFieldName('body');
    const index = this.builder.declare(
      {
        name,
        kind: inContainer ? 'method' : 'function',
        node,
        body,
        exported: scope.public,
        signature: methodSignature(node),
      },
      scope,
    );
    const inner: RubyScope = {
      ...scope,
      owner: index ?? scope.owner,
      inFunction: true,
      method: name,
      locals: new Map(scope.locals),
    };
    for (const parameter of node.childForFieldName('parameters')?.namedChildren ?? []) {
      const value = parameter.childForFieldName('value');
      if (value) this.visit(value, inner);
    }
    if (body) this.visit(body, inner);
  }

  /** `m = Money.new(…)` types `m`; `@balance = Money.new(…)` types the field for every method of the class. */
  private readAssignment(node: SyntaxNode, scope: RubyScope): void {
    const left = node.childForFieldName('left');
    const right = node.childForFieldName('right');
    const known = right ? this.valueOf(right, scope) : undefined;
    if (left?.type === 'identifier' && known) scope.locals.set(left.text, known);
    if (left?.type === 'instance_variable' && known?.kind === 'typed')
      this.builder.setFieldType(scope.classIndex, left.text.slice(1), known.type);
    let owner = scope.owner;
    if (left?.type === 'constant' && !scope.inFunction) {
      owner =
        this.builder.declare(
          { name: left.text, kind: 'constant', node, body: null, exported: true, signature: firstLine(node) },
          scope,
        ) ?? owner;
    }
    if (right) this.visit(right, { ...scope, owner });
  }

  private valueOf(value: SyntaxNode, scope: RubyScope): Receiver | undefined {
    if (value.type === 'identifier') return scope.locals.get(value.text);
    if (value.type !== 'call') return undefined;
    const shape = this.shapeOf(value, scope);
    if (shape?.construct) return { kind: 'typed', type: constructed(shape) };
    return shape ? { kind: 'result', call: shape } : undefined;
  }

  private readCall(node: SyntaxNode, scope: RubyScope): void {
    const method = node.childForFieldName('method')?.text ?? '';
    const receiver = node.childForFieldName('receiver');
    const args = node.childForFieldName('arguments');
    if (!receiver && IMPORTS.has(method) && this.readRequire(method, args, node)) return;
    if (!receiver && MIXINS.has(method) && !scope.inFunction) {
      for (const argument of args?.namedChildren ?? []) {
        const mixin = constantName(argument);
        if (mixin) this.builder.typeUse(mixin, lineOf(argument), 'EXTENDS', scope);
      }
      return;
    }
    const accessor = receiver ? undefined : ACCESSORS.get(method);
    if (accessor && !scope.inFunction) {
      for (const argument of args?.namedChildren ?? []) {
        const name = argument.type === 'simple_symbol' ? argument.text.slice(1) : undefined;
        for (const suffix of name ? accessor : [])
          this.builder.declare(
            {
              name: `${name}${suffix}`,
              kind: 'method',
              node,
              body: null,
              exported: scope.public,
              signature: node.text,
            },
            scope,
          );
      }
      return;
    }
    if (!receiver && VISIBILITY.has(method)) {
      // `private def secret … end` makes that one method private.
      for (const argument of args?.namedChildren ?? [])
        this.visit(argument, { ...scope, public: method === 'public' });
      return;
    }
    const shape = this.shapeOf(node, scope);
    if (shape) this.builder.addCall(shape, lineOf(node), scope);
    if (
      receiver &&
      !['self', 'identifier', 'constant', 'instance_variable', 'scope_resolution'].includes(receiver.type)
    )
      this.visit(receiver, scope);
    if (args) this.visit(args, scope);
    const block = node.childForFieldName('block');
    if (block) this.visit(block, scope);
  }

  /** `require_relative 'money'` → `./money`; `require 'bank/money'` is looked for on the load path. */
  private readRequire(method: string, args: SyntaxNode | null, node: SyntaxNode): boolean {
    const argument = args?.namedChild(0);
    if (argument?.type !== 'string' || argument.namedChildren.some((part) => part.type !== 'string_content'))
      return false;
    const path = argument.text.slice(1, -1);
    const relative = method === 'require_relative' && !path.startsWith('.') ? `./${path}` : path;
    this.builder.include(relative, lineOf(node));
    return true;
  }

  /**
   * `Money.new(…)` constructs a Money; `new(…)` inside a class constructs that class; `self.m`,
   * `@x.m` and typed locals give their receiver; `Account.open` is a call on the class.
   */
  private shapeOf(node: SyntaxNode, scope: RubyScope): CallShape | undefined {
    const method = node.childForFieldName('method');
    if (method?.type === 'super')
      return scope.method ? { callee: scope.method, receiver: { kind: 'super' } } : undefined;
    if (method?.type !== 'identifier') return undefined;
    const receiver = node.childForFieldName('receiver');
    if (!receiver) {
      const ownClass =
        scope.classIndex !== undefined ? this.builder.facts.symbols[scope.classIndex]?.name : undefined;
      if (method.text === 'new' && ownClass) return { callee: ownClass, construct: true };
      return { callee: method.text };
    }
    const constant = constantPath(receiver);
    if (method.text === 'new' && constant.length > 0) {
      const name = constant.at(-1) as string;
      return constant.length === 1
        ? { callee: name, construct: true }
        : {
            callee: name,
            receiver: { kind: 'name', name: constant.slice(0, -1).join('.') },
            construct: true,
          };
    }
    return { callee: method.text, receiver: this.receiverOf(receiver, scope) };
  }

  private receiverOf(receiver: SyntaxNode, scope: RubyScope): Receiver {
    return this.builder.chained(() => {
      switch (receiver.type) {
        case 'self':
          return { kind: 'self' };
        case 'instance_variable':
          return { kind: 'field', name: receiver.text.slice(1) };
        case 'identifier':
          return scope.locals.get(receiver.text) ?? { kind: 'unknown' };
        case 'constant':
        case 'scope_resolution': {
          const name = constantName(receiver);
          return name ? { kind: 'name', name } : { kind: 'unknown' };
        }
        case 'call': {
          const shape = this.shapeOf(receiver, scope);
          if (shape?.construct) return { kind: 'typed', type: constructed(shape) };
          return shape ? { kind: 'result', call: shape } : { kind: 'unknown' };
        }
        case 'parenthesized_statements': {
          const inner = receiver.namedChild(0);
          return inner ? this.receiverOf(inner, scope) : { kind: 'unknown' };
        }
        default:
          return { kind: 'unknown' };
      }
    });
  }
}

function constructed(shape: CallShape): string {
  return shape.receiver?.kind === 'name' ? `${shape.receiver.name}.${shape.callee}` : shape.callee;
}

/** `Bank::Money` → [`Bank`, `Money`]; a leading `::` (top level) is dropped; anything else gives []. */
function constantPath(node: SyntaxNode): string[] {
  if (node.type === 'constant') return [node.text];
  if (node.type !== 'scope_resolution') return [];
  const name = node.childForFieldName('name');
  const scope = node.childForFieldName('scope');
  if (name?.type !== 'constant') return [];
  const outer = scope ? constantPath(scope) : [];
  return scope && outer.length === 0 ? [] : [...outer, name.text];
}

function constantName(node: SyntaxNode): string | undefined {
  const path = constantPath(node);
  return path.length > 0 ? path.join('.') : undefined;
}

function firstLine(node: SyntaxNode): string {
  return (node.text.split('\n')[0] ?? '').trim().slice(0, 240);
}

/** `def deposit(amount)`, `def self.open` — the definition line, without an endless method's body. */
function methodSignature(node: SyntaxNode): string {
  const parameters = node.childForFieldName('parameters');
  const end = parameters ?? node.childForFieldName('name');
  if (!end) return firstLine(node);
  return node.text
    .slice(0, end.endIndex - node.startIndex)
    .replace(/\s+/g, ' ')
    .trim();
}
