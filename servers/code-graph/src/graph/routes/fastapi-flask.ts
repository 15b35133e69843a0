import { lineOf, type SyntaxNode } from '../syntax.js';
import type { HttpDetector, HttpFile } from './http-file.js';
import { stringValue } from './http-syntax.js';
import { joinPath } from './path-patterns.js';
import { pythonArguments } from './python-syntax.js';

const VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace']);
/** What makes an app or router, and the keyword that gives its routes a prefix. */
const ROUTER_FACTORIES = new Map<string, { framework: string; prefix?: string }>([
  ['FastAPI', { framework: 'fastapi' }],
  ['APIRouter', { framework: 'fastapi', prefix: 'prefix' }],
  ['Flask', { framework: 'flask' }],
  ['Blueprint', { framework: 'flask', prefix: 'url_prefix' }],
]);
/** Mount calls: where the mounted router is, and the keyword or position of the prefix. */
const MOUNTS = new Map<string, { target: number; prefix: string | number }>([
  ['include_router', { target: 0, prefix: 'prefix' }],
  ['register_blueprint', { target: 0, prefix: 'url_prefix' }],
  ['mount', { target: 1, prefix: 0 }],
]);

/**
 * FastAPI and Flask: decorated functions (`@app.get("/items/{id}")`, `@bp.route("/x",
 * methods=[…])`), routers with a prefix (`APIRouter(prefix=…)`, `Blueprint(…, url_prefix=…)`),
 * and mounts (`include_router`, `register_blueprint`, `mount`).
 */
export const fastapiFlask: HttpDetector = {
  applies: (_path, source) =>
    /@[\w.]+\.(get|post|put|patch|delete|head|options|trace|route|api_route)\(|include_router|register_blueprint|\.mount\(/.test(
      source,
    ),
  detect(file) {
    const routers = new Map<string, { framework: string; prefix: string }>();
    for (const assignment of file.root.descendantsOfType('assignment')) {
      const name = assignment.childForFieldName('left');
      const value = assignment.childForFieldName('right');
      const made =
        value?.type === 'call' ? value.childForFieldName('function')?.text.split('.').pop() : undefined;
      const factory = made ? ROUTER_FACTORIES.get(made) : undefined;
      if (name?.type !== 'identifier' || !value || !factory) continue;
      const prefixNode = factory.prefix ? pythonArguments(value).keywords.get(factory.prefix) : undefined;
      routers.set(name.text, {
        framework: factory.framework,
        prefix: stringValue(file.syntax, prefixNode) ?? '',
      });
    }
    const imported = file.facts.imports
      .map((fact) => /^(fastapi|flask)(\.|$)/.exec(fact.specifier)?.[1])
      .find((framework) => framework !== undefined);
    for (const decorated of file.root.descendantsOfType('decorated_definition')) {
      for (const decorator of decorated.namedChildren) {
        if (decorator.type === 'decorator') readDecorator(file, decorated, decorator, routers, imported);
      }
    }
    for (const call of file.root.descendantsOfType('call')) readMount(file, call);
  },
};

function readDecorator(
  file: HttpFile,
  decorated: SyntaxNode,
  decorator: SyntaxNode,
  routers: Map<string, { framework: string; prefix: string }>,
  imported: string | undefined,
): void {
  const call = decorator.namedChild(0);
  const callee = call?.type === 'call' ? call.childForFieldName('function') : null;
  if (!call || callee?.type !== 'attribute') return;
  const member = callee.childForFieldName('attribute')?.text ?? '';
  const object = callee.childForFieldName('object');
  const { positional, keywords } = pythonArguments(call);
  const path = stringValue(file.syntax, positional[0] ?? keywords.get('path') ?? keywords.get('rule'));
  if (!object || path === undefined || (path !== '' && !path.startsWith('/'))) return;
  let methods: string[];
  if (VERBS.has(member)) methods = [member.toUpperCase()];
  else if (member === 'route' || member === 'api_route') {
    const listed = keywords.get('methods');
    methods = listed
      ? listed.namedChildren.flatMap((item) => stringValue(file.syntax, item)?.toUpperCase() ?? [])
      : ['GET'];
  } else return;
  if (!file.claim(call)) return;
  const router = routers.get(object.text);
  const definition = decorated.childForFieldName('definition');
  const name = definition?.childForFieldName('name')?.text;
  const handler =
    name && definition ? file.symbolAt(['function', 'method'], name, lineOf(definition)) : undefined;
  for (const method of methods) {
    file.addRoute({
      method,
      path: joinPath(router?.prefix ?? '', path),
      framework: router?.framework ?? imported ?? (member === 'route' ? 'flask' : 'fastapi'),
      on: (object.type === 'identifier' && file.syntax.parameterOwner(object)) || object.text,
      declaration: decorated,
      body: definition?.childForFieldName('body'),
      handlers: handler !== undefined ? [{ symbol: handler }] : [],
    });
  }
}

function readMount(file: HttpFile, call: SyntaxNode): void {
  const callee = call.childForFieldName('function');
  const mount =
    callee?.type === 'attribute' ? MOUNTS.get(callee.childForFieldName('attribute')?.text ?? '') : undefined;
  const object = callee?.childForFieldName('object');
  if (!mount || !object) return;
  const { positional, keywords } = pythonArguments(call);
  const target = positional[mount.target];
  const prefixNode = typeof mount.prefix === 'number' ? positional[mount.prefix] : keywords.get(mount.prefix);
  if (!target || !/^[\w.]+$/.test(target.text) || !file.claim(call)) return;
  file.addMount({
    on: object.text,
    prefix: stringValue(file.syntax, prefixNode) ?? '',
    target: { name: target.text },
    line: lineOf(call),
  });
}
