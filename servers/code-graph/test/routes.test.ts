import { rmSync } from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type ConnectedClient, connectInMemory } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeGraph, FoundSymbol } from '../src/graph/code-graph.js';
import type { FileFacts, HttpFacts } from '../src/graph/facts.js';
import { readFileFacts } from '../src/graph/file-facts.js';
import { languageOf } from '../src/graph/languages.js';
import { regexPath } from '../src/graph/routes/django.js';
import { clientPath, joinPath, matchPath, routeSegments } from '../src/graph/routes/path-patterns.js';
import { createCodeGraphServer } from '../src/server.js';
import { copyFixture, type FixtureCopy, indexedGraph, quietLog } from './fixture-graph.js';

/** Parses `source` as the file `file` and runs the language's extractor, then the route pass. */
async function detect(file: string, source: string): Promise<FileFacts> {
  const language = languageOf(file);
  if (!language) throw new Error(`no language for ${file}`);
  return readFileFacts(language, file, source);
}

async function http(file: string, source: string): Promise<HttpFacts> {
  const facts = await detect(file, source);
  if (!facts.http) throw new Error(`the route pass found nothing in ${file}`);
  return facts.http;
}

/** Routes as `METHOD path on=… → handlers`, for compact expectations. */
async function routes(file: string, source: string): Promise<string[]> {
  const facts = await detect(file, source);
  return (facts.http?.routes ?? []).map((route) => {
    const symbol = facts.symbols[route.symbol];
    const handlers = route.handlers.map((handler) => handler.callee).join(',');
    return `${symbol?.qualifiedName} on=${route.on} ${route.framework}${handlers ? ` → ${handlers}` : ''}`;
  });
}

describe('path patterns', () => {
  it('reads every framework’s parameters and catch-alls as the same segments', () => {
    const kinds = (pattern: string) =>
      routeSegments(pattern).map((segment) => (segment.kind === 'literal' ? segment.text : segment.kind));
    expect(kinds('/users/:id')).toEqual(['users', 'param']);
    expect(kinds('/items/{item_id}/')).toEqual(['items', 'param']);
    expect(kinds('users/<int:id>/')).toEqual(['users', 'param']);
    expect(kinds('/api/cart/[id]')).toEqual(['api', 'cart', 'param']);
    expect(kinds('/files/*path')).toEqual(['files', 'rest']);
    expect(kinds('/docs/[...slug]')).toEqual(['docs', 'rest']);
    expect(kinds('/static/{rest:path}')).toEqual(['static', 'rest']);
    expect(routeSegments('/docs/[[...slug]]')).toEqual([
      { kind: 'literal', text: 'docs' },
      { kind: 'rest', optional: true },
    ]);
  });

  it('strips scheme, host, a computed base URL and the query from client URLs', () => {
    const text = (url: Parameters<typeof clientPath>[0]) =>
      clientPath(url)?.segments.map((segment) => (segment.kind === 'literal' ? segment.text : '{}'));
    expect(text(['http://localhost:3000/api/users?page=2'])).toEqual(['api', 'users']);
    expect(text([{ placeholder: `\${BASE}` }, '/users/', { placeholder: `\${id}` }])).toEqual([
      'users',
      '{}',
    ]);
    expect(text(['https://', { placeholder: `\${host}` }, ':8080/x/y#top'])).toEqual(['x', 'y']);
    expect(text(['users'])).toEqual(['users']);
    expect(clientPath([{ placeholder: 'url' }])).toBeUndefined();
    expect(clientPath(['/users/', { placeholder: `\${id}` }])?.placeholders).toBe(true);
    expect(clientPath([{ placeholder: `\${BASE}` }, '/users'])?.placeholders).toBe(false);
  });

  it('scores a literal match above one through placeholders, and fixed text above parameters', () => {
    const literal = clientPath(['/users/42'])!;
    const placeholder = clientPath(['/users/', { placeholder: `\${id}` }])!;
    const me = clientPath(['/users/me'])!;
    expect(matchPath(routeSegments('/users/:id'), literal)).toEqual({ score: 5, confidence: 0.95 });
    expect(matchPath(routeSegments('/users/:id'), placeholder)).toEqual({ score: 5, confidence: 0.8 });
    expect(matchPath(routeSegments('/users/me'), placeholder)).toEqual({ score: 4, confidence: 0.6 });
    expect(matchPath(routeSegments('/users/me'), me)?.score).toBeGreaterThan(
      matchPath(routeSegments('/users/:id'), me)?.score ?? 0,
    );
    expect(matchPath(routeSegments('/users'), literal)).toBeUndefined();
    expect(matchPath(routeSegments('/files/*'), clientPath(['/files/a/b'])!)?.confidence).toBeCloseTo(0.855);
    expect(matchPath(routeSegments('/files/*'), clientPath(['/files'])!)).toBeUndefined();
  });

  it('joins prefixes with one slash, and reads Django regexes as paths', () => {
    expect(joinPath('/api/', '/users')).toBe('/api/users');
    expect(joinPath('/users', '/')).toBe('/users');
    expect(joinPath('', '')).toBe('/');
    expect(joinPath('api/', 'users/')).toBe('/api/users/');
    expect(regexPath('^articles/(?P<year>[0-9]{4})/(\\d+)/$')).toBe('articles/<year>/<param>/');
  });
});

describe('the route pass, per framework', () => {
  it('Express: verbs, route chains, middleware and wrappers, with inline handlers owning their calls', async () => {
    const source = [
      "import express from 'express';",
      "import { auth, show } from './handlers';",
      'const app = express();',
      "app.get('/users/:id', auth, show);",
      "app.route('/books').get(listBooks).post(asyncHandler(addBook));",
      "app.delete('/books/:id', (req, res) => {",
      '  res.send(removeBook(req.params.id));',
      '});',
      "app.all('/ping', (req, res) => res.end(pong()));",
      "cache.get('/not-a-route');",
      "axios.get('/also-not', config);",
    ].join('\n');
    expect(await routes('src/app.ts', source)).toEqual([
      'GET /users/:id on=app express → auth,show',
      'POST /books on=app express → addBook',
      'GET /books on=app express → listBooks',
      'DELETE /books/:id on=app express',
      'ANY /ping on=app express',
    ]);
    const facts = await detect('src/app.ts', source);
    const routeOf = (name: string) => facts.symbols.findIndex((symbol) => symbol.qualifiedName === name);
    const callers = (callee: string) =>
      facts.calls.filter((call) => call.callee === callee).map((call) => call.caller);
    expect(callers('removeBook')).toEqual([routeOf('DELETE /books/:id')]);
    expect(callers('send')).toEqual([routeOf('DELETE /books/:id')]);
    expect(callers('pong')).toEqual([routeOf('ANY /ping')]);
    expect(facts.symbols[routeOf('DELETE /books/:id')]).toMatchObject({
      kind: 'route',
      startLine: 6,
      endLine: 8,
      signature: "app.delete('/books/:id', (req, res) =>",
      exported: true,
    });
  });

  it('Express and Fastify mounts: use, register with a prefix, require, and plugins named for their function', async () => {
    expect(
      (
        await http(
          'server.js',
          [
            "const express = require('express');",
            'const app = express();',
            "app.use('/api', apiRouter);",
            "app.use('/admin', require('./admin'));",
            'app.use(cors());',
            "fastify.register(usersPlugin, { prefix: '/users' });",
          ].join('\n'),
        )
      ).mounts,
    ).toEqual([
      { on: 'app', prefix: '/api', target: { name: 'apiRouter' }, line: 3 },
      { on: 'app', prefix: '/admin', target: { module: './admin' }, line: 4 },
      { on: 'fastify', prefix: '/users', target: { name: 'usersPlugin' }, line: 6 },
    ]);
    const plugin = [
      "import type { FastifyInstance } from 'fastify';",
      'export default async function usersPlugin(server: FastifyInstance) {',
      "  server.get('/:id', getUser);",
      "  server.route({ method: ['PUT', 'PATCH'], url: '/:id', handler: updateUser });",
      '}',
      'module.exports = usersPlugin;',
    ].join('\n');
    expect(await routes('plugins/users.ts', plugin)).toEqual([
      'GET /:id on=usersPlugin fastify → getUser',
      'PUT /:id on=usersPlugin fastify → updateUser',
      'PATCH /:id on=usersPlugin fastify → updateUser',
    ]);
    expect((await http('plugins/users.ts', plugin)).moduleExports).toBe('usersPlugin');
  });

  it('NestJS: controller prefix joined with each method decorator, handler bound through the class', async () => {
    const source = [
      "import { Controller, Get, Post } from '@nestjs/common';",
      "@Controller({ path: 'cats' })",
      'export class CatsController {',
      '  @Get()',
      '  findAll() { return []; }',
      "  @Get(':id')",
      '  findOne() { return 1; }',
      "  @Post('bulk')",
      '  @HttpCode(204)',
      '  create() {}',
      '  helper() {}',
      '}',
    ].join('\n');
    expect(await routes('cats.controller.ts', source)).toEqual([
      'GET /cats on=CatsController nestjs → findAll',
      'GET /cats/:id on=CatsController nestjs → findOne',
      'POST /cats/bulk on=CatsController nestjs → create',
    ]);
    const facts = await detect('cats.controller.ts', source);
    expect(facts.calls.find((call) => call.callee === 'findOne')?.receiver).toEqual({
      kind: 'name',
      name: 'CatsController',
    });
  });

  it('Next.js: app routes by folder (groups and slots left out) and pages/api default exports', async () => {
    const appRoute =
      'export async function GET() {}\nexport const POST = async () => {};\nfunction helper() {}\n';
    expect(await routes('web/src/app/(shop)/api/items/[id]/route.ts', appRoute)).toEqual([
      'GET /api/items/[id] on= nextjs → GET',
      'POST /api/items/[id] on= nextjs → POST',
    ]);
    expect(await routes('app/_private/route.ts', appRoute)).toEqual([]);
    expect(await routes('lib/route.ts', appRoute)).toEqual([]);
    expect(
      await routes('pages/api/users/index.ts', 'export default function handler(req, res) {}\n'),
    ).toEqual(['ANY /api/users on= nextjs → handler']);
    const inline = await detect(
      'pages/api/ping.js',
      'export default async (req, res) => {\n  res.json(status());\n};\n',
    );
    expect(inline.symbols.map((symbol) => symbol.qualifiedName)).toEqual(['ANY /api/ping']);
    expect(inline.calls.filter((call) => call.callee === 'status').map((call) => call.caller)).toEqual([0]);
  });

  it('FastAPI and Flask: decorators, router and blueprint prefixes, methods lists and mounts', async () => {
    const fastapi = [
      'from fastapi import APIRouter, FastAPI',
      'app = FastAPI()',
      'router = APIRouter(prefix="/items")',
      '@router.get("/{item_id}")',
      'async def read_item(item_id: int): ...',
      '@router.api_route("", methods=["GET", "POST"])',
      'def items(): ...',
      'app.include_router(router, prefix="/v2")',
    ].join('\n');
    expect(await routes('main.py', fastapi)).toEqual([
      'GET /items/{item_id} on=router fastapi → read_item',
      'GET /items on=router fastapi → items',
      'POST /items on=router fastapi → items',
    ]);
    expect((await http('main.py', fastapi)).mounts).toEqual([
      { on: 'app', prefix: '/v2', target: { name: 'router' }, line: 8 },
    ]);
    const flask = [
      'from flask import Blueprint',
      'bp = Blueprint("users", __name__, url_prefix="/users")',
      '@bp.route("/<int:user_id>", methods=["GET", "DELETE"])',
      'def user(user_id): ...',
      '@bp.route("/")',
      'def index(): ...',
      '@pytest.mark.parametrize("x", [1])',
      'def test_x(x): ...',
    ].join('\n');
    expect(await routes('users.py', flask)).toEqual([
      'GET /users/<int:user_id> on=bp flask → user',
      'DELETE /users/<int:user_id> on=bp flask → user',
      'GET /users on=bp flask → index',
    ]);
  });

  it('Django: path and re_path in urlpatterns, include as a mount, include([...]) in place', async () => {
    const source = [
      'from django.urls import include, path, re_path',
      'from . import views',
      'urlpatterns = [',
      '    path("articles/<int:year>/", views.year_archive),',
      '    re_path(r"^feed/(?P<slug>[-\\w]+)/$", views.Feed.as_view()),',
      '    path("api/", include("api.urls")),',
      '    path("blog/", include([path("latest/", views.latest)])),',
      ']',
    ].join('\n');
    expect(await routes('site/urls.py', source)).toEqual([
      'ANY /articles/<int:year>/ on= django → year_archive',
      'ANY /feed/<slug>/ on= django → Feed',
      'ANY /blog/latest/ on= django → latest',
    ]);
    expect((await http('site/urls.py', source)).mounts).toEqual([
      { on: '', prefix: '/api/', target: { module: 'api.urls' }, line: 6 },
    ]);
  });

  it('Gin: verbs, Handle, nested groups, inline handlers, and a group handed to a function', async () => {
    const source = [
      'package main',
      'import "github.com/gin-gonic/gin"',
      'func main() {',
      '\tr := gin.Default()',
      '\tv1 := r.Group("/v1")',
      '\tusers := v1.Group("/users")',
      '\tusers.GET("/:id", getUser)',
      '\tr.Handle("DELETE", "/cache", handlers.Flush)',
      '\tr.Any("/ping", func(c *gin.Context) {',
      '\t\tc.String(200, pong())',
      '\t})',
      '\tregisterAdmin(v1)',
      '}',
      'func registerAdmin(g *gin.RouterGroup) {',
      '\tg.POST("/admin/reload", reload)',
      '}',
    ].join('\n');
    expect(await routes('main.go', source)).toEqual([
      'GET /v1/users/:id on=r gin → getUser',
      'DELETE /cache on=r gin → Flush',
      'ANY /ping on=r gin',
      'POST /admin/reload on=registerAdmin gin → reload',
    ]);
    const found = await http('main.go', source);
    expect(found.mounts).toEqual([{ on: 'r', prefix: '/v1', target: { name: 'registerAdmin' }, line: 12 }]);
    const facts = await detect('main.go', source);
    expect(facts.symbols.find((symbol) => symbol.qualifiedName === 'ANY /ping')).toMatchObject({
      kind: 'route',
      startLine: 9,
      endLine: 11,
    });
    expect(facts.calls.find((call) => call.callee === 'Flush')?.receiver).toEqual({
      kind: 'name',
      name: 'handlers',
    });
  });
});

describe('the route pass, clients', () => {
  it('fetch and axios: methods, configs, constants, instances with a base URL, imported instances', async () => {
    const found = await http(
      'client.ts',
      [
        "import axios from 'axios';",
        "import { api } from './api';",
        "const BASE = process.env.API ?? 'http://localhost:3000/api';",
        "const local = axios.create({ baseURL: '/svc' });",
        'export async function all(id: string, options: RequestInit) {',
        `  await fetch(\`\${BASE}/users/\${id}\`);`,
        "  await fetch(BASE + '/users', { method: 'POST' });",
        `  await fetch(\`/x/\${id}\`, options);`,
        `  await axios({ method: 'patch', url: \`/users/\${id}\` });`,
        "  await axios.put('/users/' + id, {});",
        "  await local.get('/health');",
        `  await api.delete(\`/users/\${id}\`);`,
        '}',
      ].join('\n'),
    );
    expect(found.clients).toEqual([
      {
        caller: 0,
        line: 6,
        method: 'GET',
        url: ['http://localhost:3000/api/users/', { placeholder: `\${id}` }],
        library: 'fetch',
      },
      { caller: 0, line: 7, method: 'POST', url: ['http://localhost:3000/api/users'], library: 'fetch' },
      { caller: 0, line: 8, url: ['/x/', { placeholder: `\${id}` }], library: 'fetch' },
      { caller: 0, line: 9, method: 'PATCH', url: ['/users/', { placeholder: `\${id}` }], library: 'axios' },
      { caller: 0, line: 10, method: 'PUT', url: ['/users/', { placeholder: `\${id}` }], library: 'axios' },
      { caller: 0, line: 11, method: 'GET', url: ['/svc/health'], library: 'axios' },
      {
        caller: 0,
        line: 12,
        method: 'DELETE',
        url: ['/users/', { placeholder: `\${id}` }],
        library: 'axios',
        instance: 'api',
      },
    ]);
    expect(found.instances).toEqual([{ name: 'local', baseUrl: ['/svc'] }]);
  });

  it('requests and httpx: verbs, request(method, url), clients with base_url, f-strings, format and %', async () => {
    const found = await http(
      'worker.py',
      [
        'import httpx',
        'import requests as rq',
        'BASE = "http://catalog"',
        'def sync(item_id, method):',
        '    rq.get(f"{BASE}/items/{item_id}")',
        '    rq.request("DELETE", "/items/{}".format(item_id))',
        '    rq.request(method, "/items/%s" % item_id)',
        '    with httpx.Client(base_url=BASE + "/v2") as client:',
        '        client.post("/items", json={})',
      ].join('\n'),
    );
    expect(found.clients).toEqual([
      {
        caller: 1,
        line: 5,
        method: 'GET',
        url: ['http://catalog/items/', { placeholder: '{item_id}' }],
        library: 'requests',
      },
      { caller: 1, line: 6, method: 'DELETE', url: ['/items/', { placeholder: '{}' }], library: 'requests' },
      { caller: 1, line: 7, url: ['/items/', { placeholder: '%s' }], library: 'requests' },
      { caller: 1, line: 9, method: 'POST', url: ['http://catalog/v2/items'], library: 'httpx' },
    ]);
  });

  it('Go net/http: Get, Post, NewRequest with a method constant, Sprintf and concatenation', async () => {
    const found = await http(
      'client.go',
      [
        'package main',
        'import ("fmt"; "net/http")',
        'const base = "http://users:3000"',
        'func load(id string) {',
        '\thttp.Get(fmt.Sprintf("%s/users/%s", base, id))',
        '\thttp.Post(base+"/users", "application/json", nil)',
        '\thttp.NewRequest(http.MethodDelete, base+"/users/"+id, nil)',
        '\tclient := &http.Client{}',
        '\tclient.Head("/ping")',
        '}',
      ].join('\n'),
    );
    expect(found.clients.map(({ caller: _caller, ...client }) => client)).toEqual([
      {
        line: 5,
        method: 'GET',
        url: ['http://users:3000/users/', { placeholder: '%s' }],
        library: 'net/http',
      },
      { line: 6, method: 'POST', url: ['http://users:3000/users'], library: 'net/http' },
      {
        line: 7,
        method: 'DELETE',
        url: ['http://users:3000/users/', { placeholder: 'id' }],
        library: 'net/http',
      },
      { line: 9, method: 'HEAD', url: ['/ping'], library: 'net/http' },
    ]);
  });

  it('leaves files that mention no framework untouched', async () => {
    const facts = await detect('util.ts', 'export const get = (m: Map<string, number>) => m.get("/x");\n');
    expect(facts.http).toBeUndefined();
    expect(facts.symbols.map((symbol) => symbol.kind)).toEqual(['function']);
  });
});

function only(graph: CodeGraph, name: string): FoundSymbol {
  const found = graph.findSymbols(name);
  expect(found.map((entry) => `${entry.symbol.qualifiedName} ${entry.symbol.path}`)).toHaveLength(1);
  return found[0] as FoundSymbol;
}

/** Every client → route link: caller, route, the URL as written, confidence. */
function databaseOf(graph: CodeGraph) {
  const root = graph.roots[0];
  if (!root) throw new Error('the graph has no root');
  return root.index.store.db;
}

function links(graph: CodeGraph): string[] {
  return (
    databaseOf(graph)
      .prepare(
        `SELECT s.qualified_name AS source, t.qualified_name AS target, tf.path AS routeFile, e.target_text AS url, e.confidence
         FROM edges e JOIN symbols s ON s.id = e.source_id JOIN symbols t ON t.id = e.target_id JOIN files tf ON tf.id = t.file_id
         WHERE e.resolution = 'http-route' ORDER BY s.qualified_name, tf.path`,
      )
      .all() as { source: string; target: string; routeFile: string; url: string; confidence: number }[]
  ).map((row) => `${row.source} → ${row.target} (${row.routeFile.split('/')[1]}) ${row.confidence}`);
}

function routeNames(graph: CodeGraph): string[] {
  return (
    databaseOf(graph)
      .prepare(
        `SELECT s.qualified_name AS name, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind = 'route' ORDER BY f.path, s.start_line`,
      )
      .all() as { name: string; path: string }[]
  ).map((row) => `${row.name} ${row.path}`);
}

const EXPECTED_ROUTES = [
  'ANY /api/accounts/<int:account_id>/ services/accounts-django/accounts/urls.py',
  'ANY /api/accounts services/accounts-django/accounts/urls.py',
  'GET /catalog/items/{item_id} services/catalog-fastapi/app/items.py',
  'POST /catalog/items services/catalog-fastapi/app/items.py',
  'GET /health services/catalog-fastapi/app/main.py',
  'GET /health services/inventory-gin/main.go',
  'GET /api/stock/:sku services/inventory-gin/stock.go',
  'PUT /api/stock/:sku services/inventory-gin/stock.go',
  'GET /v1/orders/:id services/orders-nest/src/orders.controller.ts',
  'POST /v1/orders services/orders-nest/src/orders.controller.ts',
  'GET /health services/users-express/src/app.ts',
  'GET /api/users services/users-express/src/routes/users.ts',
  'GET /api/users/:id services/users-express/src/routes/users.ts',
  'POST /api/users services/users-express/src/routes/users.ts',
  'GET /api/cart/[id] services/web-next/app/api/cart/[id]/route.ts',
  'DELETE /api/cart/[id] services/web-next/app/api/cart/[id]/route.ts',
];

describe('the multi-service fixture, end to end', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('http-services');
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  it('makes every route a node named by method and full path, mounts and prefixes applied across files', () => {
    expect(routeNames(graph)).toEqual(EXPECTED_ROUTES);
    expect(only(graph, 'GET /v1/orders/:id').symbol).toMatchObject({
      kind: 'route',
      path: 'services/orders-nest/src/orders.controller.ts',
      startLine: 9,
      endLine: 12,
      signature: "@Get(':id') findOne(@Param('id') id: string)",
      doc: 'One order by id.',
    });
    const search = (query: string) =>
      graph.roots[0]?.queries.search(query, 20).map((hit) => hit.qualifiedName);
    expect(search('GET /v1/orders/:id')?.[0]).toBe('GET /v1/orders/:id');
    expect(search('orders')).toContain('POST /v1/orders');
  });

  it('links each client call site to the routes it hits, literal matches above placeholders, ambiguity split', () => {
    expect(links(graph)).toEqual([
      'account → ANY /api/accounts/<int:account_id>/ (accounts-django) 0.8',
      'add_item → POST /catalog/items (catalog-fastapi) 0.95',
      `checkHealth → GET /health (catalog-fastapi) 0.317`,
      `checkHealth → GET /health (inventory-gin) 0.317`,
      `checkHealth → GET /health (users-express) 0.317`,
      'fetchUser → GET /api/users/:id (users-express) 0.8',
      'fetch_item → GET /catalog/items/{item_id} (catalog-fastapi) 0.8',
      'listUsers → GET /api/users (users-express) 0.95',
      'loadUser → GET /api/users/:id (users-express) 0.8',
      'placeOrder → POST /v1/orders (orders-nest) 0.95',
      'removeFromCart → DELETE /api/cart/[id] (web-next) 0.8',
      'restock → PUT /api/stock/:sku (inventory-gin) 0.8',
    ]);
  });

  it('answers code_callers on a route with its clients, and code_callees from a client reaches route and handler', () => {
    const route = only(graph, 'GET /api/users/:id');
    const callers = route.root.queries.callers(route.symbol.id);
    expect(
      callers.map(
        (group) =>
          `${group.caller.qualifiedName} ${group.callsites.map((site) => `${site.path}:${site.line} ${site.resolution}`)}`,
      ),
    ).toEqual([
      'loadUser clients/web/src/users-client.ts:7 http-route',
      'fetchUser services/inventory-gin/users_client.go:9 http-route',
    ]);
    const client = only(graph, 'loadUser');
    const reached = client.root.queries
      .callees(client.symbol.id)
      .find((group) => group.callee?.kind === 'route');
    expect(reached?.callee?.qualifiedName).toBe('GET /api/users/:id');
    expect(reached?.text).toBe(`GET http://localhost:3000/api/users/\${id}`);
    const handlers = route.root.queries.callees(route.symbol.id);
    expect(
      handlers.map((group) => `${group.callee?.qualifiedName} ${group.callsites[0]?.resolution}`),
    ).toEqual(['getUser route-handler']);
    expect(only(graph, 'getUser').symbol.path).toBe('services/users-express/src/handlers.ts');
  });

  it('binds handlers of every framework, and gives an inline handler’s calls to its route', () => {
    const handlerOf = (name: string, file: string) => {
      const [route] = graph.findSymbols(name).filter((found) => found.symbol.path === file);
      if (!route) throw new Error(`no route ${name} in ${file}`);
      return route.root.queries
        .callees(route.symbol.id)
        .map(
          (group) => `${group.callee?.qualifiedName ?? `?${group.text}`} ${group.callsites[0]?.resolution}`,
        );
    };
    expect(handlerOf('POST /v1/orders', 'services/orders-nest/src/orders.controller.ts')).toEqual([
      'OrdersController.create route-handler',
    ]);
    expect(handlerOf('GET /catalog/items/{item_id}', 'services/catalog-fastapi/app/items.py')).toEqual([
      'get_item route-handler',
    ]);
    expect(handlerOf('ANY /api/accounts', 'services/accounts-django/accounts/urls.py')).toEqual([
      'AccountList route-handler',
    ]);
    expect(handlerOf('DELETE /api/cart/[id]', 'services/web-next/app/api/cart/[id]/route.ts')).toEqual([
      'DELETE route-handler',
    ]);
    expect(handlerOf('GET /api/stock/:sku', 'services/inventory-gin/stock.go')).toEqual([
      'getStock route-handler',
    ]);
    expect(handlerOf('GET /health', 'services/inventory-gin/main.go')).toEqual([
      '?(gin.Context).JSON unresolved',
    ]);
    expect(handlerOf('GET /health', 'services/users-express/src/app.ts')).toEqual([
      '?res.json unresolved',
      'healthReport local',
    ]);
  });

  it('reports routes and clients, and the client that hits nothing, in the summary', async () => {
    const client = await connectInMemory(createCodeGraphServer({ graph, log: quietLog }));
    try {
      const result = (await client.call('index_status', {})) as CallToolResult;
      const [root] = (
        result.structuredContent as {
          roots: { http: Record<string, unknown>; symbolsByKind: Record<string, number> }[];
        }
      ).roots;
      expect(root?.symbolsByKind.route).toBe(EXPECTED_ROUTES.length);
      expect(root?.http).toMatchObject({
        routes: EXPECTED_ROUTES.length,
        routesByFramework: {
          django: 2,
          fastapi: 3,
          nestjs: 2,
          express: 4,
          nextjs: 2,
          gin: 3,
        },
        clients: 11,
        linkedClients: 10,
        ambiguousClients: 1,
        unmatched: [
          { path: 'clients/web/src/users-client.ts', line: 28, method: 'GET', url: '/api/nothing-here' },
        ],
      });
      const text = (result.content as { text: string }[]).map((part) => part.text).join('\n');
      expect(text).toContain(`routes: ${EXPECTED_ROUTES.length}`);
      await expectCallersThroughTool(client);
      await expectTraversalAcrossServices(client);
    } finally {
      await client.close();
    }
  });
});

/** code_trace and code_impact walk CALLS edges, so they cross from a client into another service's handler. */
async function expectTraversalAcrossServices(client: ConnectedClient): Promise<void> {
  const trace = (await client.call('code_trace', { from: 'loadUser', to: 'getUser' })) as CallToolResult;
  expect(trace.isError).toBeFalsy();
  const hops = (trace.structuredContent as { found: boolean; hops: { to: { qualifiedName: string } }[] })
    .hops;
  expect(hops.map((hop) => hop.to.qualifiedName)).toEqual(['GET /api/users/:id', 'getUser']);
  const impact = (await client.call('code_impact', { symbol: 'OrdersController.create' })) as CallToolResult;
  expect(impact.isError).toBeFalsy();
  expect(JSON.stringify(impact.structuredContent)).toContain('placeOrder');
}

async function expectCallersThroughTool(client: ConnectedClient): Promise<void> {
  const result = (await client.call('code_callers', { symbol: 'POST /v1/orders' })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toMatchObject({
    symbol: { kind: 'route', qualifiedName: 'POST /v1/orders' },
    callerCount: 1,
    callers: [
      {
        caller: { qualifiedName: 'placeOrder' },
        callsites: [
          { file: 'clients/web/src/users-client.ts', line: 16, resolution: 'http-route', confidence: 0.95 },
        ],
      },
    ],
  });
}

describe('links kept current as files change', () => {
  let copy: FixtureCopy;
  let graph: CodeGraph;
  beforeAll(async () => {
    copy = copyFixture('http-services');
    graph = await indexedGraph(copy);
  });
  afterAll(async () => {
    await graph.close();
    copy.remove();
  });

  const update = async (...paths: string[]) => {
    await graph.roots[0]?.index.update(paths);
  };
  const linkOf = (client: string) => links(graph).filter((link) => link.startsWith(`${client} →`));

  it('follows a client whose URL changes to another route', async () => {
    copy.write(
      'clients/web/src/users-client.ts',
      `export async function loadUser(id: string) {\n  return fetch(\`/v1/orders/\${id}\`);\n}\n`,
    );
    await update('clients/web/src/users-client.ts');
    expect(linkOf('loadUser')).toEqual(['loadUser → GET /v1/orders/:id (orders-nest) 0.8']);
    expect(linkOf('placeOrder')).toEqual([]);
  });

  it('renames routes when a mount prefix changes in another file, and relinks their clients', async () => {
    copy.write(
      'services/catalog-fastapi/app/main.py',
      'from fastapi import FastAPI\n\nfrom . import items\n\napp = FastAPI()\napp.include_router(items.router, prefix="/shop")\n',
    );
    await update('services/catalog-fastapi/app/main.py');
    expect(routeNames(graph).filter((name) => name.includes('items.py'))).toEqual([
      'GET /shop/items/{item_id} services/catalog-fastapi/app/items.py',
      'POST /shop/items services/catalog-fastapi/app/items.py',
    ]);
    expect(linkOf('fetch_item')).toEqual([]);
    expect(linkOf('add_item')).toEqual([]);
  });

  it('drops the links into a deleted route file', async () => {
    expect(linkOf('account')).toHaveLength(1);
    rmSync(path.join(copy.root, 'services/accounts-django/accounts/urls.py'));
    await update('services/accounts-django/accounts/urls.py');
    expect(linkOf('account')).toEqual([]);
    expect(graph.findSymbols('ANY /api/accounts')).toEqual([]);
  });
});
