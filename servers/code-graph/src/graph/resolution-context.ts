import { type FileFacts, fieldType, type ImportFact } from './facts.js';
import { type GraphStore, type StoredSymbol, toSymbol } from './graph-store.js';
import type { LanguageSpec } from './language-spec.js';
import { languageOf } from './languages.js';
import { autoloadSpecifier, moduleCandidates, moduleSuffixes, submoduleSpecifier } from './module-paths.js';
import { PackageManifests } from './package-manifests.js';
import { PairCache } from './pair-cache.js';
import type { Target } from './resolution.js';
import { bindsNoName, isPackageStyle, PackageResolver } from './resolve-packages.js';

export interface ResolveOptions {
  /** The root the store indexes: package manifests are read from it. */
  root: string;
  /** What the batch just parsed, by file id, so that it is not read back from the store. */
  parsedFacts?: ReadonlyMap<number, FileFacts>;
}

/**
 * What the context asks of the reader of one file's names (the file resolver): the class or alias
 * a type name written in that file names, for field and return types declared there.
 */
export interface TypeReader {
  typeSymbol(name: string, from?: number): StoredSymbol | undefined;
}

/** State shared by every file resolved in one batch. */
export class ResolutionContext<Reader extends TypeReader = TypeReader> {
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
    private readonly makeReader: (context: ResolutionContext, fileId: number) => Reader,
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

  private readonly readers = new Map<number, Reader>();
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

  /** The reader of a file's names, made once per batch by the factory the context was given. */
  readerFor(fileId: number): Reader {
    let reader = this.readers.get(fileId);
    if (!reader) {
      reader = this.makeReader(this, fileId);
      this.readers.set(fileId, reader);
    }
    return reader;
  }

  /** The class of field `name` of `owner` (or of a base), from its declared type. */
  fieldClass(owner: StoredSymbol, name: string, depth = 0): StoredSymbol | undefined {
    const type = fieldType(this.factsOf(owner.fileId), owner.ordinal, name);
    if (type) return this.readerFor(owner.fileId).typeSymbol(type, owner.ordinal);
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
    return returns ? this.readerFor(callable.fileId).typeSymbol(returns, callable.ordinal) : undefined;
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
