import {
  type CallFact,
  type CallShape,
  type FileFacts,
  fieldType,
  type ImportFact,
  type Receiver,
} from './facts.js';
import { type GraphStore, type NewEdge, type StoredSymbol, toSymbol } from './graph-store.js';
import { type LanguageSpec, languageOf, type NameRules } from './languages.js';
import { autoloadSpecifier, moduleCandidates, moduleSuffixes, submoduleSpecifier } from './module-paths.js';
import { PackageManifests } from './package-manifests.js';
import { PairCache } from './pair-cache.js';
import { bindsNoName, isPackageStyle, PackageResolver } from './resolve-packages.js';

/**
 * How an edge's target was found, and how far to trust it. Syntactic resolution only: a
 * receiver whose type the syntax does not name stays unresolved rather than guessed at, so a
 * later type-checker pass (precise mode) can upgrade exactly those edges.
 */
export const RESOLUTIONS = {
  /** An import statement's module, found as a file under the root. */
  path: 1,
  /** A name defined at the top of the same file. */
  local: 0.95,
  /** `this.m()` / `self.m()` on the enclosing class, or `super.m()` on its bases. */
  self: 0.95,
  /** A name bound by an import, followed through re-exports. */
  import: 0.9,
  /** A receiver whose type an annotation or `new X()` gives. */
  typed: 0.9,
  /** `this.x.m()` where the field x is annotated (in the class or a base class). */
  field: 0.9,
  /** A receiver that is a call's result, typed by the callee's declared return type. */
  returned: 0.85,
  /** `X.m()` where X is a class in scope. */
  static: 0.9,
  /** A plain call to the only top-level function or class of that name in the root. */
  'unique-name': 0.5,
  /**
   * Precise mode (src/graph/precise/): the TypeScript checker's answer, which replaced or added
   * to the syntactic one. With no target, the callee is a parameter or local the graph does not hold.
   */
  checker: 0.98,
  /** An import of a package outside the root, or a call into one: not an indexing gap. */
  external: 0,
  unresolved: 0,
} as const;
export type Resolution = keyof typeof RESOLUTIONS;

export type Target = { symbol: StoredSymbol } | { module: number };

const RECEIVER_RESOLUTIONS: Record<'self' | 'typed' | 'field' | 'result' | 'member', Resolution> = {
  self: 'self',
  typed: 'typed',
  field: 'field',
  result: 'returned',
  member: 'field',
};

/** How a receiver shows in an edge's text: `this.rates.lookup`, `(Money).add`, `priceBasket().add`. */
function describeReceiver(receiver: Receiver): string {
  switch (receiver.kind) {
    case 'self':
      return 'this';
    case 'super':
      return 'super';
    case 'typed':
      return `(${receiver.type})`;
    case 'name':
      return receiver.name;
    case 'field':
      return `this.${receiver.name}`;
    case 'result': {
      const inner = receiver.call.receiver ? `${describeReceiver(receiver.call.receiver)}.` : '';
      return `${receiver.call.construct ? 'new ' : ''}${inner}${receiver.call.callee}()`;
    }
    case 'member':
      return `${describeReceiver(receiver.of)}.${receiver.name}`;
    default:
      return '?';
  }
}

const TYPE_KINDS = new Set(['class', 'interface', 'enum', 'struct', 'type']);

/** State shared by every file resolved in one batch. */
class ResolutionContext {
  readonly fileIds: Map<string, number>;
  private readonly facts: Map<number, FileFacts>;
  private readonly importTargets = new PairCache<string, string, number | undefined>();
  private readonly paths = new Map<number, string>();
  /** Go packages, Java packages, C# namespaces and Rust module paths: modules that are not one file. */
  readonly packages: PackageResolver;

  /** Packages that import themselves by name (package.json `exports`). */
  private readonly manifests: PackageManifests;

  constructor(
    readonly store: GraphStore,
    { root, parsedFacts = new Map() }: ResolveOptions,
  ) {
    this.facts = new Map(parsedFacts);
    this.manifests = new PackageManifests(root);
    this.fileIds = new Map(store.allFiles().map((file) => [file.path, file.id]));
    for (const [path, id] of this.fileIds) this.paths.set(id, path);
    this.packages = new PackageResolver(this);
  }

  factsOf(fileId: number): FileFacts {
    let facts = this.facts.get(fileId);
    if (!facts) {
      facts = this.store.factsOf(fileId);
      this.facts.set(fileId, facts);
    }
    return facts;
  }

  pathOf(fileId: number): string {
    return this.paths.get(fileId) ?? '';
  }

  private readonly symbols = new Map<number, StoredSymbol[]>();

  /** The file's stored symbols by ordinal, the file node first; read once per batch. */
  symbolsOf(fileId: number): StoredSymbol[] {
    let found = this.symbols.get(fileId);
    if (!found) {
      found = this.store.symbolsOf(fileId);
      this.symbols.set(fileId, found);
    }
    return found;
  }

  /** The file an import in `fromFile` means, if it is under the root. */
  importTarget(fromFile: string, specifier: string): number | undefined {
    return this.importTargets.get(fromFile, specifier, () => {
      const style = this.moduleStyleOf(fromFile) ?? 'ecmascript';
      if (isPackageStyle(style)) return this.packages.moduleFiles(fromFile, specifier)[0];
      return (
        this.firstIndexed(moduleCandidates(style, fromFile, specifier)) ??
        this.nearestBySuffix(fromFile, moduleSuffixes(style, specifier)) ??
        (style === 'ecmascript'
          ? this.firstIndexed(this.manifests.candidates(fromFile, specifier))
          : undefined)
      );
    });
  }

  private readonly moduleStyles = new Map<string, LanguageSpec['moduleStyle'] | undefined>();

  /** How the file's language names modules; asked per import and per call, so read once per path. */
  moduleStyleOf(path: string): LanguageSpec['moduleStyle'] | undefined {
    if (!this.moduleStyles.has(path)) this.moduleStyles.set(path, languageOf(path)?.moduleStyle);
    return this.moduleStyles.get(path);
  }

  private firstIndexed(candidates: readonly string[]): number | undefined {
    for (const candidate of candidates) {
      const id = this.fileIds.get(candidate);
      if (id !== undefined) return id;
    }
    return undefined;
  }

  /** Every file an import means: one for most languages, a whole package for Go, Java and C#. */
  importedFiles(fromFile: string, fact: ImportFact): number[] {
    if (isPackageStyle(this.moduleStyleOf(fromFile))) return this.packages.importFiles(fromFile, fact);
    const target = this.importTarget(fromFile, fact.specifier);
    return target !== undefined ? [target] : [];
  }

  /** What `name` means to a file that imports it from `fileId`, following re-exports. */
  lookupExport(fileId: number, name: string, seen?: Set<string>): Target | undefined {
    if (seen) return this.followExport(fileId, name, seen);
    // A walk from nothing seen has one answer for the whole batch (symbols and facts stay as they
    // are while it resolves): a namespace's member called from hundreds of files is walked once.
    return this.exports.get(fileId, name, () => this.followExport(fileId, name, new Set()));
  }

  private readonly exports = new PairCache<number, string, Target | undefined>();

  private followExport(fileId: number, name: string, seen: Set<string>): Target | undefined {
    const key = `${fileId}:${name}`;
    if (seen.has(key) || seen.size > 16) return undefined;
    seen.add(key);
    const facts = this.factsOf(fileId);
    const wanted = name === 'default' ? (facts.defaultExport ?? name) : name;
    const defined = this.topLevelNamed(fileId, wanted);
    const symbol = defined.find((candidate) => candidate.exported) ?? defined[0];
    if (symbol) return { symbol };
    const peer = this.packages.peerExport(fileId, wanted);
    if (peer) return { symbol: peer };
    const path = this.pathOf(fileId);
    // Python re-exports by importing: any name a module binds can be imported from it.
    const python = this.moduleStyleOf(path) === 'python';
    for (const fact of facts.imports) {
      if (!fact.reexport && !python) continue;
      const binding = fact.bindings.find((candidate) => candidate.local === wanted);
      if (binding) return this.bindingTarget(path, fact, binding.imported, seen);
    }
    for (const fact of facts.imports) {
      if (!fact.star || (!fact.reexport && !python)) continue;
      const target = this.importTarget(path, fact.specifier);
      const found = target !== undefined ? this.lookupExport(target, wanted, seen) : undefined;
      if (found) return found;
    }
    return undefined;
  }

  bindingTarget(
    fromFile: string,
    fact: ImportFact,
    imported: string | undefined,
    seen = new Set<string>(),
  ): Target | undefined {
    if (isPackageStyle(this.moduleStyleOf(fromFile))) {
      return this.packages.bindingTarget(fromFile, fact, imported, seen);
    }
    const moduleId = this.importTarget(fromFile, fact.specifier);
    if (imported === undefined) return moduleId !== undefined ? { module: moduleId } : undefined;
    const found = moduleId !== undefined ? this.lookupExport(moduleId, imported, seen) : undefined;
    if (found) return found;
    const style = this.moduleStyleOf(fromFile) ?? 'ecmascript';
    const submodule = submoduleSpecifier(style, fact.specifier, imported);
    const submoduleId = submodule !== undefined ? this.importTarget(fromFile, submodule) : undefined;
    return submoduleId !== undefined ? { module: submoduleId } : undefined;
  }

  private readonly resolvers = new Map<number, FileResolver>();
  // Lookups repeat across thousands of calls in a batch; each is asked of SQLite once.
  private readonly topLevelCache = new Map<number, Map<string, StoredSymbol[]>>();
  private readonly memberCache = new PairCache<number, string, StoredSymbol | undefined>();
  private readonly basesCache = new Map<number, number[]>();
  private readonly symbolCache = new Map<number, StoredSymbol | undefined>();
  private readonly callablesCache = new Map<string, StoredSymbol[]>();

  topLevelNamed(fileId: number, name: string): StoredSymbol[] {
    let byName = this.topLevelCache.get(fileId);
    if (!byName) {
      byName = new Map();
      const path = this.pathOf(fileId);
      for (const symbol of this.symbolsOf(fileId)) {
        if (symbol.parentId !== null || symbol.ordinal < 0) continue;
        if (bindsNoName(this.factsOf(fileId).symbols[symbol.ordinal], path)) continue;
        byName.set(symbol.name, [...(byName.get(symbol.name) ?? []), symbol]);
      }
      this.topLevelCache.set(fileId, byName);
    }
    return byName.get(name) ?? [];
  }

  memberNamed(parentId: number, name: string): StoredSymbol | undefined {
    return this.memberCache.get(parentId, name, () => this.store.memberNamed(parentId, name));
  }

  /** What a class extends and implements; only read once the structure pass is done. */
  basesOf(symbolId: number): number[] {
    let bases = this.basesCache.get(symbolId);
    if (!bases) {
      // The other parts of a C# partial class are searched like bases: fields, members and bases of one class.
      bases = [...this.store.basesOf(symbolId), ...this.packages.otherParts(this.symbolById(symbolId))];
      this.basesCache.set(symbolId, bases);
    }
    return bases;
  }

  /** Bases read during the structure pass may have been incomplete. */
  forgetBases(): void {
    this.basesCache.clear();
    this.packages.forget();
  }

  symbolById(id: number): StoredSymbol | undefined {
    if (!this.symbolCache.has(id)) this.symbolCache.set(id, this.store.symbolById(id));
    return this.symbolCache.get(id);
  }

  callablesNamed(name: string): StoredSymbol[] {
    let found = this.callablesCache.get(name);
    if (!found) {
      found = this.store.callablesNamed(name);
      this.callablesCache.set(name, found);
    }
    return found;
  }

  resolverFor(fileId: number): FileResolver {
    let resolver = this.resolvers.get(fileId);
    if (!resolver) {
      resolver = new FileResolver(this, fileId);
      this.resolvers.set(fileId, resolver);
    }
    return resolver;
  }

  /** The class of field `name` of `owner` (or of a base), from its declared type. */
  fieldClass(owner: StoredSymbol, name: string, depth = 0): StoredSymbol | undefined {
    const type = fieldType(this.factsOf(owner.fileId), owner.ordinal, name);
    if (type) return this.resolverFor(owner.fileId).typeSymbol(type, owner.ordinal);
    if (depth > 8) return undefined;
    for (const baseId of this.basesOf(owner.id)) {
      const base = this.symbolById(baseId);
      const found = base && this.fieldClass(base, name, depth + 1);
      if (found) return found;
    }
    return undefined;
  }

  /** The class a function or method is declared to return. */
  returnClass(callable: StoredSymbol): StoredSymbol | undefined {
    const returns = this.factsOf(callable.fileId).symbols[callable.ordinal]?.returns;
    return returns ? this.resolverFor(callable.fileId).typeSymbol(returns, callable.ordinal) : undefined;
  }

  /** A method or field of a class, looked up through what it extends and implements. */
  memberOf(owner: StoredSymbol, name: string, depth = 0): StoredSymbol | undefined {
    const own = this.memberNamed(owner.id, name) ?? this.packages.outsideMember(owner, name);
    if (own || depth > 8) return own;
    for (const baseId of this.basesOf(owner.id)) {
      const base = this.symbolById(baseId);
      const found = base && this.memberOf(base, name, depth + 1);
      if (found) return found;
    }
    return undefined;
  }

  private byBasename: Map<string, string[]> | undefined;

  /**
   * The file whose path ends with one of `suffixes` (tried in order), nearest the importing file
   * when several do: `#include "money.h"` found under whichever include folder holds it.
   */
  nearestBySuffix(fromFile: string, suffixes: string[]): number | undefined {
    if (suffixes.length === 0) return undefined;
    if (!this.byBasename) {
      this.byBasename = new Map();
      for (const path of this.fileIds.keys()) {
        const base = path.slice(path.lastIndexOf('/') + 1);
        this.byBasename.set(base, [...(this.byBasename.get(base) ?? []), path]);
      }
    }
    for (const suffix of suffixes) {
      const base = suffix.slice(suffix.lastIndexOf('/') + 1);
      const matches = (this.byBasename.get(base) ?? []).filter(
        (path) => path === suffix || path.endsWith(`/${suffix}`),
      );
      if (matches.length === 0) continue;
      const shared = (path: string) => commonFolderDepth(path, fromFile);
      const [nearest] = matches.sort(
        (a, b) => shared(b) - shared(a) || a.length - b.length || a.localeCompare(b),
      );
      return nearest !== undefined ? this.fileIds.get(nearest) : undefined;
    }
    return undefined;
  }

  private readonly qualifiedCache = new Map<number, Map<string, StoredSymbol[]>>();

  /** The symbols of a file with that qualified name, at any depth (namespaces and classes included). */
  qualifiedIn(fileId: number, qualifiedName: string): StoredSymbol[] {
    let byName = this.qualifiedCache.get(fileId);
    if (!byName) {
      byName = new Map();
      for (const symbol of this.symbolsOf(fileId)) {
        if (symbol.ordinal < 0) continue;
        byName.set(symbol.qualifiedName, [...(byName.get(symbol.qualifiedName) ?? []), symbol]);
      }
      this.qualifiedCache.set(fileId, byName);
    }
    return byName.get(qualifiedName) ?? [];
  }

  private readonly visibleCache = new Map<string, StoredSymbol | undefined>();
  private readonly closures = new Map<number, Map<number, number>>();
  private readonly includes = new Map<number, number[]>();
  private readonly definedAs = new Map<string, StoredSymbol[]>();

  /**
   * A symbol of that qualified name in the file or in what it includes, transitively: C and C++
   * headers, Ruby and PHP files required, Bash files sourced. Of several, the one fewest
   * includes away wins.
   */
  visibleQualified(fileId: number, qualifiedName: string): StoredSymbol | undefined {
    const key = `${fileId}:${qualifiedName}`;
    if (this.visibleCache.has(key)) return this.visibleCache.get(key);
    const closure = this.includeClosure(fileId);
    let found: StoredSymbol | undefined;
    let nearest = Number.POSITIVE_INFINITY;
    for (const symbol of this.symbolsQualified(qualifiedName)) {
      const distance = closure.get(symbol.fileId);
      if (distance !== undefined && distance < nearest) {
        found = symbol;
        nearest = distance;
      }
    }
    this.visibleCache.set(key, found);
    return found;
  }

  /** Every symbol of the root with that qualified name, in the order they were stored. */
  private symbolsQualified(qualifiedName: string): StoredSymbol[] {
    let found = this.definedAs.get(qualifiedName);
    if (!found) {
      found = (
        this.rootWideQueries().allByQualifiedName.all(qualifiedName) as Parameters<typeof toSymbol>[0][]
      ).map(toSymbol);
      this.definedAs.set(qualifiedName, found);
    }
    return found;
  }

  /** The files a file sees through its includes (itself at distance 0), each with how many includes away. */
  private includeClosure(fileId: number): Map<number, number> {
    let closure = this.closures.get(fileId);
    if (closure) return closure;
    closure = new Map([[fileId, 0]]);
    const pending = [fileId];
    for (let next = 0; next < pending.length; next++) {
      const current = pending[next] as number;
      const distance = (closure.get(current) ?? 0) + 1;
      for (const included of this.includesOf(current)) {
        if (closure.has(included)) continue;
        closure.set(included, distance);
        pending.push(included);
      }
    }
    this.closures.set(fileId, closure);
    return closure;
  }

  private includesOf(fileId: number): number[] {
    let found = this.includes.get(fileId);
    if (!found) {
      const path = this.pathOf(fileId);
      found = this.factsOf(fileId)
        .imports.filter((fact) => fact.star)
        .map((fact) => this.importTarget(path, fact.specifier))
        .filter((target): target is number => target !== undefined);
      this.includes.set(fileId, found);
    }
    return found;
  }

  /** The class a qualified name names in the file its language's autoloading convention gives (PSR-4, Zeitwerk). */
  autoloaded(fromFile: string, qualifiedName: string): StoredSymbol | undefined {
    const style = this.moduleStyleOf(fromFile);
    const specifier = style && autoloadSpecifier(style, qualifiedName);
    const fileId = specifier ? this.importTarget(fromFile, specifier) : undefined;
    return fileId !== undefined ? this.qualifiedIn(fileId, qualifiedName)[0] : undefined;
  }

  private rootWide?: Record<
    'byQualifiedName' | 'allByQualifiedName' | 'functionsByName',
    ReturnType<GraphStore['db']['prepare']>
  >;
  private readonly uniqueCache = new Map<string, StoredSymbol | undefined>();

  /** Lookups over every file of the root, prepared once a language with NameRules asks for one. */
  private rootWideQueries() {
    this.rootWide ??= {
      byQualifiedName: this.store.db.prepare(
        'SELECT * FROM symbols WHERE qualified_name = ? AND ordinal >= 0 ORDER BY id LIMIT 8',
      ),
      allByQualifiedName: this.store.db.prepare(
        'SELECT * FROM symbols WHERE qualified_name = ? AND ordinal >= 0 ORDER BY id',
      ),
      functionsByName: this.store.db.prepare(
        "SELECT * FROM symbols WHERE name = ? AND kind = 'function' LIMIT 2",
      ),
    };
    return this.rootWide;
  }

  /**
   * The one definition of a qualified name in the whole root. A Ruby class reopened in several
   * files counts as one (the first stored); two different kinds of symbol are ambiguous.
   */
  uniqueQualified(qualifiedName: string): StoredSymbol | undefined {
    const key = `q:${qualifiedName}`;
    if (!this.uniqueCache.has(key)) {
      const rows = (
        this.rootWideQueries().byQualifiedName.all(qualifiedName) as Parameters<typeof toSymbol>[0][]
      ).map(toSymbol);
      this.uniqueCache.set(key, rows.every((row) => row.kind === rows[0]?.kind) ? rows[0] : undefined);
    }
    return this.uniqueCache.get(key);
  }

  /** The only function of that name in the root, at any depth (an Elixir function lives in its module). */
  uniqueFunction(name: string): StoredSymbol | undefined {
    const key = `f:${name}`;
    if (!this.uniqueCache.has(key)) {
      const rows = this.rootWideQueries().functionsByName.all(name) as Parameters<typeof toSymbol>[0][];
      this.uniqueCache.set(key, rows.length === 1 && rows[0] ? toSymbol(rows[0]) : undefined);
    }
    return this.uniqueCache.get(key);
  }

  private readonly definitions = new Map<number, StoredSymbol>();

  /**
   * What a C or C++ declaration declares, defined in a file that includes the declaring one
   * (`money.c` for a prototype in `money.h`, `money.cpp` for a method declared in its class);
   * the declaration itself when no such definition is indexed. A definition written under
   * `using namespace bank;` has the shorter qualified name `Money.add`: without the namespaces
   * its file opens, the declaration's name must match.
   */
  definitionOf(symbol: StoredSymbol): StoredSymbol {
    if (!this.factsOf(symbol.fileId).symbols[symbol.ordinal]?.declaration) return symbol;
    const known = this.definitions.get(symbol.id);
    if (known) return known;
    const includers = this.store.dependentsOf(undefined, this.pathOf(symbol.fileId));
    const defines = (candidate: StoredSymbol) =>
      (candidate.kind === 'function' || candidate.kind === 'method') &&
      !this.factsOf(candidate.fileId).symbols[candidate.ordinal]?.declaration;
    let found: StoredSymbol | undefined;
    for (const fileId of includers) {
      found = this.qualifiedIn(fileId, symbol.qualifiedName).find(defines);
      if (found) break;
    }
    for (const fileId of found ? [] : includers) {
      const opened = this.factsOf(fileId).usingNamespaces ?? [];
      found = opened
        .flatMap((namespace) =>
          symbol.qualifiedName.startsWith(`${namespace}.`)
            ? this.qualifiedIn(fileId, symbol.qualifiedName.slice(namespace.length + 1))
            : [],
        )
        .find(defines);
      if (found) break;
    }
    this.definitions.set(symbol.id, found ?? symbol);
    return found ?? symbol;
  }
}

/** How many leading folders two root-relative paths share. */
function commonFolderDepth(a: string, b: string): number {
  const left = a.split('/').slice(0, -1);
  const right = b.split('/').slice(0, -1);
  let depth = 0;
  while (depth < left.length && left[depth] === right[depth]) depth++;
  return depth;
}

/** Resolves one file's facts into edges, against the symbols of every file in the store. */
class FileResolver {
  private readonly symbols: StoredSymbol[];
  private readonly fileNode: StoredSymbol;
  private readonly facts: FileFacts;
  private readonly path: string;
  private readonly topLevel = new Map<string, StoredSymbol>();
  private readonly bindings = new Map<string, { fact: ImportFact; imported: string | undefined }>();
  private readonly byId = new Map<number, StoredSymbol>();
  /** The language's own name rules, if it has any (C, C++, Ruby, PHP, Bash, the tags languages). */
  private readonly names: NameRules | undefined;

  constructor(
    private readonly context: ResolutionContext,
    readonly fileId: number,
  ) {
    const all = context.symbolsOf(fileId);
    this.fileNode = all[0] as StoredSymbol;
    this.symbols = all.slice(1);
    this.facts = context.factsOf(fileId);
    this.path = context.pathOf(fileId);
    for (const symbol of all) this.byId.set(symbol.id, symbol);
    for (const symbol of this.symbols) {
      if (bindsNoName(this.facts.symbols[symbol.ordinal], this.path)) continue;
      if (symbol.parentId === null && !this.topLevel.has(symbol.name)) this.topLevel.set(symbol.name, symbol);
    }
    for (const fact of this.facts.imports) {
      for (const binding of fact.bindings)
        this.bindings.set(binding.local, { fact, imported: binding.imported });
    }
    this.names = languageOf(this.path)?.names;
  }

  private edge(edge: Omit<NewEdge, 'fileId'>): void {
    this.context.store.addEdgeOf(this.fileId, edge);
  }

  private sourceOf(ordinal: number | undefined): number {
    return ordinal !== undefined ? (this.symbols[ordinal]?.id ?? this.fileNode.id) : this.fileNode.id;
  }

  /** CONTAINS, IMPORTS, EXTENDS and IMPLEMENTS: what the second pass's lookups walk. */
  resolveStructure(): void {
    for (const symbol of this.symbols) {
      this.edge({
        kind: 'CONTAINS',
        sourceId: symbol.parentId ?? this.fileNode.id,
        targetId: symbol.id,
        targetText: symbol.qualifiedName,
        targetName: symbol.name,
        line: symbol.startLine,
        resolution: 'local',
        confidence: 1,
      });
    }
    for (const fact of this.facts.imports) {
      // A Go package, a namespace or a star import can be several files: an edge to each.
      const targets = this.context.importedFiles(this.path, fact);
      for (const targetFile of targets.length > 0 ? targets : [undefined]) this.importEdge(fact, targetFile);
    }
    for (const use of this.facts.typeUses) {
      if (use.relation === 'REFERENCES') continue;
      const found = this.resolveName(use.type, use.user);
      const target = found && 'symbol' in found.target ? found.target.symbol : undefined;
      const resolution: Resolution = target && found ? found.via : 'unresolved';
      this.edge({
        kind: use.relation,
        sourceId: this.sourceOf(use.user),
        targetId: target?.id ?? null,
        targetText: use.type,
        targetName: lastSegment(use.type),
        line: use.line,
        resolution,
        confidence: RESOLUTIONS[resolution],
      });
    }
    this.facts.symbols.forEach((fact, ordinal) => {
      if (fact.memberOf) this.attachToOwner(ordinal, fact.memberOf);
    });
  }

  private importEdge(fact: ImportFact, targetFile: number | undefined): void {
    this.context.store.addImport(
      this.fileId,
      fact.specifier,
      targetFile !== undefined ? this.context.pathOf(targetFile) : null,
    );
    const targetId = targetFile !== undefined ? (this.context.store.fileNodeOf(targetFile) ?? null) : null;
    const resolution: Resolution = targetId !== null ? 'path' : 'external';
    this.edge({
      kind: 'IMPORTS',
      sourceId: this.fileNode.id,
      targetId,
      targetText: fact.specifier,
      targetName: fact.specifier,
      line: fact.line,
      resolution,
      confidence: RESOLUTIONS[resolution],
    });
  }

  /** CALLS and REFERENCES, once every file's structure is in place. */
  resolveUses(): void {
    for (const call of this.facts.calls) this.resolveCall(call);
    const seen = new Set<string>();
    for (const use of this.facts.typeUses) {
      if (use.relation !== 'REFERENCES') continue;
      const found = this.resolveName(use.type, use.user);
      if (!found || !('symbol' in found.target)) continue;
      const sourceId = this.sourceOf(use.user);
      const key = `${sourceId}:${found.target.symbol.id}`;
      if (seen.has(key) || sourceId === found.target.symbol.id) continue;
      seen.add(key);
      this.edge({
        kind: 'REFERENCES',
        sourceId,
        targetId: found.target.symbol.id,
        targetText: use.type,
        targetName: lastSegment(use.type),
        line: use.line,
        resolution: found.via,
        confidence: RESOLUTIONS[found.via],
      });
    }
  }

  private resolveCall(call: CallFact): void {
    const { target: found, resolution, text } = this.shapeTarget(call, call.caller, 0);
    // A call bound to a C prototype or an in-class C++ declaration is a call of its definition.
    const target = found && this.context.definitionOf(found);
    this.edge({
      kind: 'CALLS',
      sourceId: this.sourceOf(call.caller),
      targetId: target?.id ?? null,
      targetText: text,
      targetName: call.callee,
      line: call.line,
      resolution: target ? resolution : this.isExternal(call) ? 'external' : 'unresolved',
      confidence: target ? RESOLUTIONS[resolution] : 0,
    });
  }

  /**
   * A call into a package outside the root (`z.string()` with `z` from 'zod', or on what such a
   * call returns, `expect(x).toBe(y)`): nothing in the root to find.
   */
  private isExternal(call: CallShape): boolean {
    if (this.names?.commands && !call.receiver) return true;
    if (call.receiver?.kind === 'result') return this.isExternal(call.receiver.call);
    const name =
      call.receiver?.kind === 'name' ? call.receiver.name : call.receiver ? undefined : call.callee;
    if (name === undefined) return false;
    const binding = this.bindings.get(name) ?? this.bindings.get(name.split('.')[0] ?? '');
    return (
      binding !== undefined && this.context.importTarget(this.path, binding.fact.specifier) === undefined
    );
  }

  /** What a call as written (`f()`, `x.m()`, `new X()`) calls, made inside the symbol `caller`. */
  private shapeTarget(
    call: CallShape,
    caller: number | undefined,
    depth: number,
  ): { target?: StoredSymbol; resolution: Resolution; text: string } {
    const receiver = call.receiver;
    const text = receiver ? `${describeReceiver(receiver)}.${call.callee}` : call.callee;
    if (!receiver) {
      const member = this.names?.implicitSelf ? this.ownMember(call.callee, caller) : undefined;
      if (member) return { target: member, resolution: 'self', text };
      const found = this.resolveName(call.callee, caller);
      if (found && 'symbol' in found.target)
        return { target: found.target.symbol, resolution: found.via, text };
      // A name imported from a package outside the root is that package's, whatever the root defines.
      if (this.bindings.has(call.callee) && this.isExternal(call)) return { resolution: 'import', text };
      const candidates = this.context.callablesNamed(call.callee);
      const unique =
        candidates.length === 1
          ? candidates[0]
          : candidates.length === 0 && this.names?.global
            ? this.context.uniqueFunction(call.callee)
            : undefined;
      return { target: unique, resolution: 'unique-name', text };
    }
    switch (receiver.kind) {
      case 'super': {
        const owner = this.enclosingClass(caller);
        for (const baseId of owner ? this.context.basesOf(owner.id) : []) {
          const base = this.context.symbolById(baseId);
          const target = base && this.context.memberOf(base, call.callee);
          if (target) return { target, resolution: 'self', text };
        }
        return { resolution: 'self', text };
      }
      case 'name': {
        // `bank::helper()`, `Money::zero()`, `Bank::Rate.new`: the qualified name first, as
        // namespaces and modules are reopened across files.
        const qualified = this.names?.nested
          ? this.resolveName(`${receiver.name}.${call.callee}`, caller)
          : undefined;
        if (qualified && 'symbol' in qualified.target)
          return { target: qualified.target.symbol, resolution: 'static', text };
        const found = this.resolveName(receiver.name, caller);
        if (!found) return { resolution: 'import', text };
        if ('module' in found.target) {
          const inModule = this.context.lookupExport(found.target.module, call.callee);
          return {
            target: inModule && 'symbol' in inModule ? inModule.symbol : undefined,
            resolution: 'import',
            text,
          };
        }
        const owner = found.target.symbol;
        // A class for a static call, or a TypeScript namespace for one of its functions.
        const hasMembers = TYPE_KINDS.has(owner.kind) || owner.kind === 'module';
        const target = hasMembers ? this.context.memberOf(owner, call.callee) : undefined;
        return { target, resolution: 'static', text };
      }
      case 'unknown':
        return { resolution: 'unresolved', text };
      default: {
        const owner = this.receiverClass(receiver, caller, depth);
        const resolution = RECEIVER_RESOLUTIONS[receiver.kind];
        return { target: owner && this.context.memberOf(owner, call.callee), resolution, text };
      }
    }
  }

  /** The class or interface a receiver is an instance of, when the syntax says. */
  private receiverClass(
    receiver: Receiver,
    caller: number | undefined,
    depth: number,
  ): StoredSymbol | undefined {
    if (depth > 6) return undefined;
    switch (receiver.kind) {
      case 'self':
        return this.enclosingClass(caller);
      case 'typed':
        return this.typeSymbol(receiver.type, caller);
      case 'field': {
        const owner = this.enclosingClass(caller);
        return owner && this.context.fieldClass(owner, receiver.name);
      }
      case 'result': {
        const { target } = this.shapeTarget(receiver.call, caller, depth + 1);
        if (!target) return undefined;
        // Calling a class (`new X()`, or Python's `X()`) makes an X.
        if (TYPE_KINDS.has(target.kind)) return target;
        return this.context.returnClass(target);
      }
      case 'member': {
        const owner = this.receiverClass(receiver.of, caller, depth + 1);
        return owner && this.context.fieldClass(owner, receiver.name);
      }
      default:
        return undefined;
    }
  }

  /** A type name written in this file (inside the symbol `from`), as the class, interface or alias it names. */
  typeSymbol(name: string, from?: number): StoredSymbol | undefined {
    const found = this.resolveName(name, from);
    const symbol = found && 'symbol' in found.target ? found.target.symbol : undefined;
    return symbol && TYPE_KINDS.has(symbol.kind) ? symbol : undefined;
  }

  private enclosingClass(ordinal: number | undefined): StoredSymbol | undefined {
    let symbol = ordinal !== undefined ? this.symbols[ordinal] : undefined;
    while (symbol && !TYPE_KINDS.has(symbol.kind)) {
      const outside = this.facts.symbols[symbol.ordinal]?.memberOf;
      if (outside) return this.typeSymbol(outside, this.facts.symbols[symbol.ordinal]?.parent);
      symbol = symbol.parentId !== null ? this.byId.get(symbol.parentId) : undefined;
    }
    return symbol;
  }

  /**
   * What a name written in this file refers to: an import binding, a top-level definition,
   * or for `a.b.C` the longest prefix that is one of those, then members or exports of it.
   */
  resolveName(
    name: string,
    from?: number,
  ): { target: Target; via: 'local' | 'import' | 'unique-name' } | undefined {
    const scoped = this.names?.nested || this.names?.inclusive ? this.resolveScoped(name, from) : undefined;
    if (scoped) return scoped;
    const direct = this.resolveSimple(name);
    if (direct) return direct;
    const parts = name.split('.');
    for (let cut = parts.length - 1; cut >= 1; cut--) {
      const head = this.resolveSimple(parts.slice(0, cut).join('.'));
      if (!head) continue;
      let target: Target | undefined = head.target;
      for (const part of parts.slice(cut)) {
        if (!target) break;
        if ('module' in target) target = this.context.lookupExport(target.module, part);
        else {
          const member = this.context.memberOf(target.symbol, part);
          target = member ? { symbol: member } : undefined;
        }
      }
      return target ? { target, via: head.via } : undefined;
    }
    return undefined;
  }

  private resolveSimple(name: string): { target: Target; via: 'local' | 'import' } | undefined {
    const binding = this.bindings.get(name);
    if (binding) {
      const target = this.context.bindingTarget(this.path, binding.fact, binding.imported);
      return target ? { target, via: 'import' } : undefined;
    }
    const local = this.topLevel.get(name);
    return local
      ? { target: { symbol: local }, via: 'local' }
      : this.context.packages.scopeLookup(this.fileId, name);
  }

  /**
   * Names under NameRules: by qualified name, from the enclosing scopes outward, in this file and
   * what it includes, then in the file autoloading would load, then (for `global` languages)
   * anywhere in the root.
   */
  private resolveScoped(
    name: string,
    from: number | undefined,
  ): { target: Target; via: 'local' | 'import' | 'unique-name' } | undefined {
    const candidates = this.qualifiedCandidates(name, from);
    for (const qualified of candidates) {
      const visible = this.context.visibleQualified(this.fileId, qualified);
      if (visible)
        return { target: { symbol: visible }, via: visible.fileId === this.fileId ? 'local' : 'import' };
    }
    for (const qualified of candidates) {
      const loaded = this.context.autoloaded(this.path, qualified);
      if (loaded) return { target: { symbol: loaded }, via: 'import' };
    }
    if (!this.names?.global) return undefined;
    for (const qualified of candidates) {
      const unique = this.context.uniqueQualified(qualified);
      if (unique) return { target: { symbol: unique }, via: 'unique-name' };
    }
    return undefined;
  }

  /**
   * The qualified names `name` may mean inside the symbol `from`, innermost first: `Money` in a
   * method of `bank.Account` is `bank.Account.Money`, `bank.Money`, then `Money`, with the
   * namespaces of `using namespace` before the last. A name bound by PHP `use` means what it binds.
   */
  private qualifiedCandidates(name: string, from: number | undefined): string[] {
    const [head = '', ...rest] = name.split('.');
    const imported = this.bindings.get(head)?.imported;
    if (imported) return [[imported, ...rest].join('.')];
    const symbol = from !== undefined ? this.facts.symbols[from] : undefined;
    const scopeName =
      symbol && (TYPE_KINDS.has(symbol.kind) || symbol.kind === 'module')
        ? symbol.qualifiedName
        : symbol?.qualifiedName.split('.').slice(0, -1).join('.');
    const parts = scopeName ? scopeName.split('.') : [];
    const prefixes = parts.map((_, cut) => parts.slice(0, parts.length - cut).join('.'));
    prefixes.push(...(this.facts.usingNamespaces ?? []));
    // Inside class Money, `Money` is the class itself (C++'s injected class name), not its constructor.
    const under = (prefix: string) =>
      lastSegment(prefix) === head ? `${prefix}${name.slice(head.length)}` : `${prefix}.${name}`;
    return [...prefixes.map(under), name];
  }

  /**
   * A bare call inside a method, as a call of the class's own or inherited method (C++, Ruby).
   * `Money(5)` inside Money's methods makes a Money, as it does anywhere else.
   */
  private ownMember(name: string, caller: number | undefined): StoredSymbol | undefined {
    const owner = this.enclosingClass(caller);
    const member = owner && owner.name !== name ? this.context.memberOf(owner, name) : undefined;
    return member && (member.kind === 'method' || member.kind === 'function') ? member : undefined;
  }

  /** `Money Money::add(…) {…}` in money.cpp belongs to class Money of money.hpp: CONTAINS says so. */
  private attachToOwner(ordinal: number, owner: string): void {
    const definition = this.symbols[ordinal];
    const found = this.resolveName(owner, this.facts.symbols[ordinal]?.parent);
    const target = found && 'symbol' in found.target ? found.target.symbol : undefined;
    if (!definition || !target || !(TYPE_KINDS.has(target.kind) || target.kind === 'module')) return;
    this.edge({
      kind: 'CONTAINS',
      sourceId: target.id,
      targetId: definition.id,
      targetText: definition.qualifiedName,
      targetName: definition.name,
      line: definition.startLine,
      resolution: found?.via ?? 'local',
      confidence: RESOLUTIONS[found?.via ?? 'local'],
    });
  }
}

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/**
 * Rebuilds the edges of `fileIds` in two passes: structure first for all of them, so that
 * calls resolved in the second pass see every class's bases.
 */
export interface ResolveOptions {
  /** The root the store indexes: package manifests are read from it. */
  root: string;
  /** What the batch just parsed, by file id, so that it is not read back from the store. */
  parsedFacts?: ReadonlyMap<number, FileFacts>;
}

/** A file whose edges could not be resolved: left without edges, the rest of the batch resolved. */
export interface ResolveFailure {
  fileId: number;
  path: string;
  error: string;
}

export function resolveFiles(
  store: GraphStore,
  fileIds: Iterable<number>,
  options: ResolveOptions,
): ResolveFailure[] {
  const context = new ResolutionContext(store, options);
  const resolvers: FileResolver[] = [];
  const failed = new Map<number, ResolveFailure>();
  const isolated = (fileId: number, step: () => void) => {
    if (failed.has(fileId)) return;
    try {
      step();
    } catch (error) {
      // One file the resolver cannot handle must not stop the others: it keeps no half-made edges.
      store.clearEdgesOf(fileId);
      failed.set(fileId, { fileId, path: context.pathOf(fileId), error: (error as Error).message });
    }
  };
  for (const fileId of new Set(fileIds)) {
    if (store.fileNodeOf(fileId) === undefined) continue;
    store.clearEdgesOf(fileId);
    isolated(fileId, () => resolvers.push(context.resolverFor(fileId)));
  }
  for (const resolver of resolvers) isolated(resolver.fileId, () => resolver.resolveStructure());
  context.forgetBases();
  for (const resolver of resolvers) isolated(resolver.fileId, () => resolver.resolveUses());
  return [...failed.values()];
}
