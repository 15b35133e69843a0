import path from 'node:path';
import type { FileFacts, HttpClientFact, HttpFacts, HttpMountFact, ImportFact, UrlPiece } from '../facts.js';
import type { GraphStore, StoredSymbol } from '../graph-store.js';
import { languageOf } from '../languages.js';
import { moduleCandidates, submoduleSpecifier } from '../module-paths.js';
import { joinPieces, piecesText } from './http-syntax.js';
import { clientPath, joinPath, matchPath, routeSegments, type Segment } from './path-patterns.js';

/** The resolution of an edge from a client call site to the route it hits. */
export const HTTP_ROUTE = 'http-route';
/** The resolution of an edge from a route to a handler it runs. */
export const ROUTE_HANDLER = 'route-handler';
const SUMMARY_KEY = 'http_summary';
/** Mounts followed from a route outward, at most: routers are not nested deeper in practice, and cycles end here. */
const MAX_MOUNT_DEPTH = 8;
const MAX_PATHS_PER_ROUTE = 16;
const MAX_UNMATCHED_LISTED = 20;

export interface HttpSummary {
  routes: number;
  routesByFramework: Record<string, number>;
  clients: number;
  linkedClients: number;
  /** Clients matching several routes equally well, linked to each at a split confidence. */
  ambiguousClients: number;
  links: number;
  /** Clients that hit no indexed route, or whose URL the syntax does not give: the first few. */
  unmatched: { path: string; line: number; method?: string; url: string }[];
}

const EMPTY_SUMMARY: HttpSummary = {
  routes: 0,
  routesByFramework: {},
  clients: 0,
  linkedClients: 0,
  ambiguousClients: 0,
  links: 0,
  unmatched: [],
};

/**
 * The cross-service step, after resolution: gives each route its full path through the mounts
 * that prefix it (in any file), labels its handler calls, and links every client call site to the
 * route(s) it hits by method and path pattern. It reads only the files with HTTP facts, so it is
 * cheap enough to redo whole on every batch. `parsed` are the files the batch parsed, with their
 * facts (whose HTTP part is kept apart first). Returns the files whose links it rewrote.
 */
export function linkHttp(store: GraphStore, parsed: Iterable<[number, FileFacts]>): number[] {
  store.syncHttpFacts(parsed);
  const files = store.httpFiles().map((row) => ({
    ...(JSON.parse(row.facts) as HttpRecordFacts),
    fileId: row.fileId,
    path: row.path,
  }));
  if (files.length === 0) {
    if (store.meta(SUMMARY_KEY) !== undefined) store.setMeta(SUMMARY_KEY, JSON.stringify(EMPTY_SUMMARY));
    return [];
  }
  store.setMeta(SUMMARY_KEY, JSON.stringify(new HttpLinker(store, files).link()));
  return files.filter((file) => file.http.clients.length > 0).map((file) => file.fileId);
}

/** What index_status reports of the HTTP layer. */
export function httpSummary(store: GraphStore): HttpSummary {
  const stored = store.meta(SUMMARY_KEY);
  return stored ? (JSON.parse(stored) as HttpSummary) : EMPTY_SUMMARY;
}

interface HttpRecordFacts {
  http: HttpFacts;
  imports: ImportFact[];
  defaultExport?: string;
}

interface HttpRecord extends HttpRecordFacts {
  fileId: number;
  path: string;
}

interface IndexedRoute {
  symbolId: number;
  name: string;
  method: string;
  patterns: Segment[][];
}

type MountRef = { file: HttpRecord; mount: HttpMountFact };

class HttpLinker {
  private readonly byPath: Map<string, HttpRecord>;
  private allPaths?: Set<string>;
  /** Each file's stored symbols by ordinal (-1 is the file's node). */
  private readonly symbols = new Map<number, Map<number, StoredSymbol>>();
  private readonly mountsInto = new Map<string, MountRef[]>();
  private readonly globalPrefixes: MountRef[] = [];
  private readonly prefixCache = new Map<string, string[]>();

  constructor(
    private readonly store: GraphStore,
    private readonly files: HttpRecord[],
  ) {
    this.byPath = new Map(files.map((file) => [file.path, file]));
  }

  link(): HttpSummary {
    for (const file of this.files) {
      for (const mount of file.http.mounts) {
        if ('framework' in mount.target) {
          this.globalPrefixes.push({ file, mount });
          continue;
        }
        for (const key of this.targetKeys(file, mount.target)) {
          this.mountsInto.set(key, [...(this.mountsInto.get(key) ?? []), { file, mount }]);
        }
      }
    }
    const summary: HttpSummary = { ...EMPTY_SUMMARY, routesByFramework: {}, unmatched: [] };
    const routes = this.placeRoutes(summary);
    this.store.clearHttpEdges(HTTP_ROUTE);
    for (const file of this.files)
      for (const client of file.http.clients) this.linkClient(file, client, routes, summary);
    return summary;
  }

  /** Renames each route to its full path and labels its handler calls; returns them for matching. */
  private placeRoutes(summary: HttpSummary): IndexedRoute[] {
    const routes: IndexedRoute[] = [];
    for (const file of this.files) {
      for (const route of file.http.routes) {
        const symbol = this.symbolOf(file, route.symbol);
        if (symbol?.kind !== 'route') continue;
        let paths = this.prefixesOf(file, route.on, 0).map((prefix) => joinPath(prefix, route.path));
        if (route.framework === 'nestjs') {
          const global = this.globalPrefixes.filter((ref) => servedBy(ref.file.path, file.path));
          if (global.length > 0)
            paths = global.flatMap((ref) => paths.map((each) => joinPath(ref.mount.prefix, each)));
        }
        paths = [...new Set(paths)].sort().slice(0, MAX_PATHS_PER_ROUTE);
        const name = `${route.method} ${paths[0] ?? route.path}`;
        if (symbol.qualifiedName !== name) this.store.renameSymbol(symbol.id, name);
        for (const handler of route.handlers)
          this.store.relabelCalls(symbol.id, handler.line, handler.callee, ROUTE_HANDLER);
        routes.push({ symbolId: symbol.id, name, method: route.method, patterns: paths.map(routeSegments) });
        summary.routes++;
        summary.routesByFramework[route.framework] = (summary.routesByFramework[route.framework] ?? 0) + 1;
      }
    }
    return routes;
  }

  /** The prefixes mounts put before the routes of router `on` in `file`: '' when nothing mounts it. */
  private prefixesOf(file: HttpRecord, on: string, depth: number): string[] {
    const key = baseKey(file, on);
    const cached = this.prefixCache.get(key);
    if (cached) return cached;
    const mounts = depth < MAX_MOUNT_DEPTH ? (this.mountsInto.get(key) ?? []) : [];
    const prefixes =
      mounts.length === 0
        ? ['']
        : mounts.flatMap((ref) =>
            this.prefixesOf(ref.file, ref.mount.on, depth + 1).map((outer) =>
              joinPath(outer, ref.mount.prefix),
            ),
          );
    const distinct = [...new Set(prefixes)].slice(0, MAX_PATHS_PER_ROUTE);
    this.prefixCache.set(key, distinct);
    return distinct;
  }

  private linkClient(
    file: HttpRecord,
    client: HttpClientFact,
    routes: IndexedRoute[],
    summary: HttpSummary,
  ): void {
    let url = client.url;
    if (client.instance !== undefined) {
      // A call on an imported name is a client only when that name is a client instance made elsewhere.
      const base = this.instanceBase(file, client.instance);
      if (!base) return;
      url = joinPieces(base, url);
    }
    summary.clients++;
    const asked = clientPath(url);
    const matches: { route: IndexedRoute; score: number; confidence: number }[] = [];
    for (const route of asked ? routes : []) {
      if (!methodAccepts(route.method, client.method)) continue;
      let best: { score: number; confidence: number } | undefined;
      for (const pattern of route.patterns) {
        const match = asked && matchPath(pattern, asked);
        if (match && (!best || match.score > best.score)) best = match;
      }
      if (best) matches.push({ route, ...best });
    }
    const top = Math.max(...matches.map((match) => match.score));
    const chosen = matches.filter((match) => match.score === top);
    const written = `${client.method ?? '?'} ${piecesText(url)}`;
    if (chosen.length === 0) {
      if (summary.unmatched.length < MAX_UNMATCHED_LISTED)
        summary.unmatched.push({
          path: file.path,
          line: client.line,
          ...(client.method && { method: client.method }),
          url: piecesText(url),
        });
      return;
    }
    const sourceId = this.sourceOf(file, client.caller);
    if (sourceId === undefined) return;
    summary.linkedClients++;
    if (chosen.length > 1) summary.ambiguousClients++;
    // An unknown method, or several equally good routes, make each link less certain.
    const share = (client.method ? 1 : 0.8) / chosen.length;
    for (const match of chosen) {
      if (match.route.symbolId === sourceId) continue;
      this.store.addEdge({
        kind: 'CALLS',
        sourceId,
        targetId: match.route.symbolId,
        targetText: written,
        targetName: match.route.name,
        fileId: file.fileId,
        line: client.line,
        resolution: HTTP_ROUTE,
        confidence: Math.round(match.confidence * share * 1000) / 1000,
      });
      summary.links++;
    }
  }

  /** Which routers a mount target names: `usersRouter`, `items.router`, `routes.Register`, or a module. */
  private targetKeys(file: HttpRecord, target: { name: string } | { module: string }): string[] {
    if ('module' in target) {
      const module = this.moduleFile(file, target.module, true);
      return module ? this.defaultKeys(module) : [];
    }
    const [head = '', ...rest] = target.name.split('.');
    const member = rest.join('.');
    if (!member && this.basesOf(file).has(head)) return [baseKey(file, head)];
    const binding = this.bindingOf(file, head);
    if (binding) {
      const module = this.importedFile(file, binding.fact, binding.imported);
      if (!module) return [];
      const keys = (name: string) =>
        this.basesOf(module.file).has(name) ? [baseKey(module.file, name)] : [];
      // A module (`import * as users`, Python's `from . import items`) is followed by the member written after it.
      if (module.submodule || binding.imported === undefined)
        return member ? keys(member) : this.defaultKeys(module.file);
      return binding.imported === 'default' ? this.defaultKeys(module.file) : keys(binding.imported);
    }
    // Go: a function of the same package (its folder), or of the package `head` names.
    if (languageOf(file.path)?.id !== 'go') return [];
    const folder = path.posix.dirname(file.path);
    const name = member || head;
    return this.files
      .filter((other) =>
        member
          ? path.posix.basename(path.posix.dirname(other.path)) === head
          : path.posix.dirname(other.path) === folder,
      )
      .filter((other) => this.basesOf(other).has(name))
      .map((other) => baseKey(other, name));
  }

  /** The base URL of a client instance imported under `name` (undefined when it is not one). */
  private instanceBase(file: HttpRecord, name: string): UrlPiece[] | undefined {
    const binding = this.bindingOf(file, name);
    const module = binding && this.importedFile(file, binding.fact, binding.imported);
    if (!binding || !module) return undefined;
    const wanted =
      module.submodule || binding.imported === undefined || binding.imported === 'default'
        ? (module.file.defaultExport ?? module.file.http.moduleExports)
        : binding.imported;
    return module.file.http.instances.find((instance) => instance.name === wanted)?.baseUrl;
  }

  /** What a default import of a file gets, among the routers it declares routes or mounts on. */
  private defaultKeys(file: HttpRecord): string[] {
    const bases = this.basesOf(file);
    const named = [file.defaultExport, file.http.moduleExports, 'default', ''].find(
      (name) => name !== undefined && bases.has(name),
    );
    const chosen = named !== undefined ? [named] : bases.size === 1 ? [...bases] : [];
    return chosen.map((base) => baseKey(file, base));
  }

  private basesOf(file: HttpRecord): Set<string> {
    return new Set([
      ...file.http.routes.map((route) => route.on),
      ...file.http.mounts.map((mount) => mount.on),
    ]);
  }

  private bindingOf(
    file: HttpRecord,
    local: string,
  ): { fact: ImportFact; imported: string | undefined } | undefined {
    for (const fact of file.imports) {
      const binding = fact.bindings.find((candidate) => candidate.local === local);
      if (binding) return { fact, imported: binding.imported };
    }
    return undefined;
  }

  /** The file an import names (a Python `from . import items` may name the submodule `items`). */
  private importedFile(
    file: HttpRecord,
    fact: ImportFact,
    imported: string | undefined,
  ): { file: HttpRecord; submodule: boolean } | undefined {
    const style = languageOf(file.path)?.moduleStyle;
    const submodule =
      style && imported !== undefined ? submoduleSpecifier(style, fact.specifier, imported) : undefined;
    const inner = submodule !== undefined ? this.moduleFile(file, submodule, false) : undefined;
    if (inner) return { file: inner, submodule: true };
    const module = this.moduleFile(file, fact.specifier, false);
    return module ? { file: module, submodule: false } : undefined;
  }

  /**
   * The file with HTTP facts a specifier names from `file`. Django's `include('users.urls')` is
   * relative to the project folder, which may be any folder above the urls.py that says it.
   */
  private moduleFile(file: HttpRecord, specifier: string, fromAncestors: boolean): HttpRecord | undefined {
    const style = languageOf(file.path)?.moduleStyle;
    if (!style) return undefined;
    const candidates = moduleCandidates(style, file.path, specifier);
    if (fromAncestors && style === 'python' && !specifier.startsWith('.')) {
      const rest = specifier.split('.').join('/');
      // moduleCandidates looked beside the file and at the root; the folders between are left.
      for (
        let folder = path.posix.dirname(path.posix.dirname(file.path));
        folder !== '.';
        folder = path.posix.dirname(folder)
      ) {
        candidates.push(`${folder}/${rest}.py`, `${folder}/${rest}/__init__.py`);
      }
    }
    this.allPaths ??= new Set(this.store.allFiles().map((stored) => stored.path));
    const found = candidates.find((candidate) => this.allPaths?.has(candidate));
    return found !== undefined ? this.byPath.get(found) : undefined;
  }

  private symbolOf(file: HttpRecord, ordinal: number): StoredSymbol | undefined {
    let symbols = this.symbols.get(file.fileId);
    if (!symbols) {
      symbols = new Map(this.store.symbolsOf(file.fileId).map((symbol) => [symbol.ordinal, symbol]));
      this.symbols.set(file.fileId, symbols);
    }
    return symbols.get(ordinal);
  }

  /** The symbol a client call is made in, or the file's node for top-level code. */
  private sourceOf(file: HttpRecord, caller: number | undefined): number | undefined {
    return (this.symbolOf(file, caller ?? -1) ?? this.symbolOf(file, -1))?.id;
  }
}

function baseKey(file: HttpRecord, on: string): string {
  return `${file.fileId}\0${on}`;
}

function methodAccepts(route: string, client: string | undefined): boolean {
  return (
    route === 'ANY' || client === undefined || route === client || (client === 'HEAD' && route === 'GET')
  );
}

/**
 * Whether a Nest global prefix set in `main` applies to a controller in `file`: the same service,
 * taken as the folder holding main (above its `src/`, if that is where main is).
 */
function servedBy(main: string, file: string): boolean {
  const folder = path.posix.dirname(main).replace(/(^|\/)src$/, '');
  return folder === '' || folder === '.' || file.startsWith(`${folder}/`);
}
