import type { SyntaxNode } from '../syntax.js';
import { callArguments, ECMASCRIPT_FUNCTIONS, functionName, objectProperty } from './ecmascript-syntax.js';
import type { HttpDetector, HttpFile, RouteHandler } from './http-file.js';
import { stringValue } from './http-syntax.js';

const VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'options', 'head', 'all']);
/** Calls that make an app or router. */
const FACTORIES = new Set(['express', 'express.Router', 'Router', 'fastify', 'Fastify']);
/** Receivers that are an app or router by convention, in files that import no framework (route modules handed `app`). */
const CONVENTIONAL = new Set(['app', 'router', 'server', 'fastify', 'routes']);
const CLIENT_PACKAGES = new Set(['axios', 'got', 'ky', 'node-fetch', 'superagent', 'undici']);
const SERVER_PACKAGE = /^(express|fastify)(\/|$)/;
const REFERENCES = new Set(['identifier', 'member_expression', 'shorthand_property_identifier']);

/** Express and Fastify: `app.get('/x', h)`, `app.route('/x').get(h)`, `fastify.route({…})`, `app.use('/api', router)`, `fastify.register(plugin, { prefix })`. */
export const expressFastify: HttpDetector = {
  // A route whose path is written in place, or any route or mount call in a file that imports a framework.
  applies: (_path, source) =>
    /\.(get|post|put|patch|delete|options|head|all)\s*\(\s*['"`][/*]|\.route\s*\(\s*['"`{]/.test(source) ||
    (/(from\s*|require\(\s*)['"](express|fastify)['"]|\bRouter\s*\(/.test(source) &&
      /\.(get|post|put|patch|delete|options|head|all|route|use|register)\s*\(/.test(source)),
  detect: (file) => new ExpressReader(file).read(),
};

class ExpressReader {
  private readonly servers = new Set<string>();
  /** Client libraries and instances, whose `get('/x', config)` is a request, not a route. */
  private readonly clients = new Set(['axios']);
  private framework?: 'express' | 'fastify';

  constructor(private readonly file: HttpFile) {}

  read(): void {
    for (const fact of this.file.facts.imports) {
      const server = SERVER_PACKAGE.exec(fact.specifier)?.[1];
      if (server === 'express' || server === 'fastify') this.framework ??= server;
      if (CLIENT_PACKAGES.has(fact.specifier))
        for (const binding of fact.bindings) this.clients.add(binding.local);
    }
    for (const declarator of this.file.root.descendantsOfType('variable_declarator')) {
      const name = declarator.childForFieldName('name');
      const value = declarator.childForFieldName('value');
      const made = value?.childForFieldName(
        value.type === 'new_expression' ? 'constructor' : 'function',
      )?.text;
      if (name?.type !== 'identifier' || !made) continue;
      if (FACTORIES.has(made)) this.servers.add(name.text);
      if (this.clients.has(made.split('.')[0] ?? '')) this.clients.add(name.text);
    }
    for (const assignment of this.file.root.descendantsOfType('assignment_expression')) {
      const right = assignment.childForFieldName('right');
      if (assignment.childForFieldName('left')?.text === 'module.exports' && right?.type === 'identifier')
        this.file.http.moduleExports = right.text;
    }
    for (const call of this.file.root.descendantsOfType('call_expression')) this.readCall(call);
  }

  private readCall(call: SyntaxNode): void {
    const callee = call.childForFieldName('function');
    if (callee?.type !== 'member_expression') return;
    const member = callee.childForFieldName('property')?.text ?? '';
    if (!VERBS.has(member) && member !== 'route' && member !== 'use' && member !== 'register') return;
    const object = callee.childForFieldName('object');
    const args = callArguments(call);
    if (!object) return;
    if (VERBS.has(member)) {
      const chained = routeChain(object);
      if (chained) {
        const path = stringValue(this.file.syntax, callArguments(chained.route)[0]);
        if (path !== undefined && this.isServer(chained.base) && this.file.claim(call))
          this.route(call, member, path, chained.base, args);
        return;
      }
      const path = stringValue(this.file.syntax, args[0]);
      const last = args.at(-1);
      if (path === undefined || !/^[/*]/.test(path) || args.length < 2 || !last || !isHandler(last)) return;
      if (this.isServer(object) && this.file.claim(call))
        this.route(call, member, path, object, args.slice(1));
    } else if (member === 'route' && args[0]?.type === 'object') {
      if (this.isServer(object) && this.file.claim(call)) this.fastifyRoute(call, object, args[0]);
    } else if (member === 'use' || member === 'register') {
      if (this.isServer(object) && this.file.claim(call)) this.mount(call, member, object, args);
    }
  }

  private route(
    call: SyntaxNode,
    verb: string,
    path: string,
    base: SyntaxNode,
    handlers: SyntaxNode[],
  ): void {
    this.file.addRoute({
      method: verb === 'all' ? 'ANY' : verb.toUpperCase(),
      path,
      framework: this.frameworkOf(base),
      on: this.baseName(base),
      declaration: call,
      body: handlers.find((handler) => ECMASCRIPT_FUNCTIONS.has(handler.type))?.childForFieldName('body'),
      handlers: handlers.flatMap(handlersOf),
    });
  }

  /** `fastify.route({ method: ['GET', 'HEAD'], url: '/x', handler })`. */
  private fastifyRoute(call: SyntaxNode, base: SyntaxNode, options: SyntaxNode): void {
    const url = stringValue(
      this.file.syntax,
      objectProperty(options, 'url') ?? objectProperty(options, 'path'),
    );
    const methodNode = objectProperty(options, 'method');
    const methods =
      methodNode?.type === 'array'
        ? methodNode.namedChildren.map((item) => stringValue(this.file.syntax, item))
        : [stringValue(this.file.syntax, methodNode)];
    const handler = objectProperty(options, 'handler');
    if (url === undefined) return;
    for (const method of methods) {
      if (!method) continue;
      this.file.addRoute({
        method: method.toUpperCase(),
        path: url,
        framework: 'fastify',
        on: this.baseName(base),
        declaration: call,
        body: handler && ECMASCRIPT_FUNCTIONS.has(handler.type) ? handler.childForFieldName('body') : null,
        handlers: handler ? handlersOf(handler) : [],
      });
    }
  }

  /** `app.use('/api', router)`, `app.use(require('./routes'))`, `fastify.register(plugin, { prefix: '/v1' })`. */
  private mount(call: SyntaxNode, member: string, base: SyntaxNode, args: SyntaxNode[]): void {
    const first = stringValue(this.file.syntax, args[0]);
    const prefix =
      member === 'register'
        ? (stringValue(this.file.syntax, objectProperty(args[1], 'prefix')) ?? '')
        : (first ?? '');
    const targets = member === 'register' ? args.slice(0, 1) : first !== undefined ? args.slice(1) : args;
    for (const target of targets) {
      const module = requiredModule(target);
      const name = ECMASCRIPT_FUNCTIONS.has(target.type)
        ? functionName(target)
        : target.type === 'identifier' || target.type === 'member_expression'
          ? target.text
          : undefined;
      const mounted = module !== undefined ? { module } : name !== undefined ? { name } : undefined;
      if (mounted)
        this.file.addMount({
          on: this.baseName(base),
          prefix,
          target: mounted,
          line: call.startPosition.row + 1,
        });
    }
  }

  private isServer(receiver: SyntaxNode): boolean {
    const name = receiver.type === 'identifier' ? receiver.text : undefined;
    if (name === undefined || this.clients.has(name)) return false;
    return this.servers.has(name) || CONVENTIONAL.has(name) || this.framework !== undefined;
  }

  private frameworkOf(base: SyntaxNode): string {
    return this.framework ?? (base.text === 'fastify' ? 'fastify' : 'express');
  }

  /** The router a mount names: the variable, or the plugin function whose parameter it is. */
  private baseName(base: SyntaxNode): string {
    return (base.type === 'identifier' && this.file.syntax.parameterOwner(base)) || base.text;
  }
}

/** `app.route('/x').get(h).post(h2)`: the `route(…)` call and the app under it. */
function routeChain(object: SyntaxNode): { route: SyntaxNode; base: SyntaxNode } | undefined {
  let node: SyntaxNode | null = object;
  while (node?.type === 'call_expression') {
    const callee = node.childForFieldName('function');
    if (callee?.type !== 'member_expression') return undefined;
    const member = callee.childForFieldName('property')?.text ?? '';
    const inner = callee.childForFieldName('object');
    if (member === 'route' && inner) return { route: node, base: inner };
    if (!VERBS.has(member)) return undefined;
    node = inner;
  }
  return undefined;
}

function isHandler(node: SyntaxNode): boolean {
  return (
    ECMASCRIPT_FUNCTIONS.has(node.type) ||
    node.type === 'identifier' ||
    node.type === 'member_expression' ||
    node.type === 'call_expression'
  );
}

/** A handler argument as what it runs; `asyncHandler(fn)` and similar wrappers run what they wrap. */
function handlersOf(node: SyntaxNode): RouteHandler[] {
  if (ECMASCRIPT_FUNCTIONS.has(node.type)) return [{ inline: node }];
  if (REFERENCES.has(node.type)) return [{ reference: node }];
  if (node.type !== 'call_expression') return [];
  return callArguments(node).flatMap((arg): RouteHandler[] =>
    ECMASCRIPT_FUNCTIONS.has(arg.type)
      ? [{ inline: arg }]
      : REFERENCES.has(arg.type)
        ? [{ reference: arg }]
        : [],
  );
}

/** `require('./routes')` or `import('./routes')` → `./routes`. */
function requiredModule(node: SyntaxNode): string | undefined {
  if (node.type !== 'call_expression') return undefined;
  const callee = node.childForFieldName('function')?.text;
  const first = callArguments(node)[0];
  return (callee === 'require' || callee === 'import') && first?.type === 'string'
    ? first.text.slice(1, -1)
    : undefined;
}
