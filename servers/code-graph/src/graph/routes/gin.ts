import { lineOf, type SyntaxNode } from '../syntax.js';
import type { HttpDetector, HttpFile, RouteHandler } from './http-file.js';
import { stringValue } from './http-syntax.js';
import { joinPath } from './path-patterns.js';

const VERBS = new Map([
  ['GET', 'GET'],
  ['POST', 'POST'],
  ['PUT', 'PUT'],
  ['PATCH', 'PATCH'],
  ['DELETE', 'DELETE'],
  ['OPTIONS', 'OPTIONS'],
  ['HEAD', 'HEAD'],
  ['Any', 'ANY'],
]);
const ENGINES = new Set(['gin.Default', 'gin.New']);

/** A router variable: the engine or function parameter it hangs from, and the group prefix it adds. */
interface Chain {
  root: string;
  prefix: string;
}

/**
 * Gin: `r.GET("/users/:id", h)`, `r.Handle("GET", …)`, groups `api := r.Group("/api")`, and a
 * group handed to a function (`registerUsers(api)`) as a mount of that function's routes.
 */
export const gin: HttpDetector = {
  applies: (_path, source) => /\.(GET|POST|PUT|PATCH|DELETE|OPTIONS|HEAD|Any|Handle|Group)\(/.test(source),
  detect: (file) => new GinReader(file).read(),
};

class GinReader {
  private readonly chains = new Map<string, Chain>();

  constructor(private readonly file: HttpFile) {}

  read(): void {
    for (const declaration of this.file.root.descendantsOfType([
      'short_var_declaration',
      'assignment_statement',
      'var_spec',
    ])) {
      const names =
        declaration.childForFieldName('left')?.namedChildren ?? declaration.childrenForFieldName('name');
      const values =
        (declaration.childForFieldName('right') ?? declaration.childForFieldName('value'))?.namedChildren ??
        [];
      for (const [position, name] of names.entries()) {
        const value = values[position];
        const chain = value && this.chainOf(value);
        // An engine (`r := gin.Default()`) is the root of its own chain.
        if (name.type === 'identifier' && chain)
          this.chains.set(name.text, chain.root ? chain : { root: name.text, prefix: chain.prefix });
      }
    }
    for (const call of this.file.root.descendantsOfType('call_expression')) this.readCall(call);
  }

  /** The chain a router-valued expression stands for: an engine, a group of a known router, or a known variable. */
  private chainOf(node: SyntaxNode): Chain | undefined {
    if (node.type === 'identifier') return this.chains.get(node.text);
    if (node.type !== 'call_expression') return undefined;
    const callee = node.childForFieldName('function');
    if (callee && ENGINES.has(callee.text)) return { root: '', prefix: '' };
    if (callee?.type !== 'selector_expression' || callee.childForFieldName('field')?.text !== 'Group')
      return undefined;
    const operand = callee.childForFieldName('operand');
    const prefix = stringValue(this.file.syntax, node.childForFieldName('arguments')?.namedChild(0));
    const base = operand && this.baseOf(operand);
    return base && prefix !== undefined
      ? { root: base.root, prefix: joinPath(base.prefix, prefix) }
      : undefined;
  }

  /** Like chainOf, but any other identifier is a router too: a parameter (named for its function) or a variable. */
  private baseOf(node: SyntaxNode): Chain | undefined {
    const known = this.chainOf(node);
    if (known || node.type !== 'identifier') return known;
    return { root: this.file.syntax.parameterOwner(node) ?? node.text, prefix: '' };
  }

  private readCall(call: SyntaxNode): void {
    const callee = call.childForFieldName('function');
    const args = (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
      (arg) => arg.type !== 'comment',
    );
    if (callee?.type !== 'selector_expression') {
      this.readHandOver(call, callee, args);
      return;
    }
    const field = callee.childForFieldName('field')?.text ?? '';
    const operand = callee.childForFieldName('operand');
    const handle = field === 'Handle';
    const method = handle ? stringValue(this.file.syntax, args[0])?.toUpperCase() : VERBS.get(field);
    const [pathNode, ...handlers] = handle ? args.slice(1) : args;
    const path = stringValue(this.file.syntax, pathNode);
    if (!method || !operand || path === undefined || !path.startsWith('/') || handlers.length === 0) {
      this.readHandOver(call, callee, args);
      return;
    }
    const base = this.baseOf(operand);
    if (!base || !this.file.claim(call)) return;
    this.file.addRoute({
      method,
      path: joinPath(base.prefix, path),
      framework: 'gin',
      on: base.root,
      declaration: call,
      body: handlers.find((handler) => handler.type === 'func_literal')?.childForFieldName('body'),
      handlers: handlers.flatMap((handler): RouteHandler[] =>
        handler.type === 'func_literal'
          ? [{ inline: handler }]
          : handler.type === 'identifier' || handler.type === 'selector_expression'
            ? [{ reference: handler }]
            : [],
      ),
    });
  }

  /** `registerUsers(api)` with `api` a group: the function's routes are mounted under the group's prefix. */
  private readHandOver(call: SyntaxNode, callee: SyntaxNode | null, args: SyntaxNode[]): void {
    if (!callee || (callee.type !== 'identifier' && callee.type !== 'selector_expression')) return;
    for (const arg of args) {
      const chain = arg.type === 'identifier' ? this.chains.get(arg.text) : undefined;
      if (!chain) continue;
      this.file.addMount({
        on: chain.root,
        prefix: chain.prefix,
        target: { name: callee.text },
        line: lineOf(call),
      });
    }
  }
}
