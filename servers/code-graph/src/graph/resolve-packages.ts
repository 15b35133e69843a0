import path from 'node:path';
import type { FileFacts, ImportFact, SymbolFact } from './facts.js';
import { type GraphStore, type StoredSymbol, toSymbol } from './graph-store.js';
import type { LanguageSpec } from './language-spec.js';
import { languageOf } from './languages.js';
import { type GoModule, goImportFolders, rustModuleFiles, rustModulePath } from './module-paths.js';
import type { Target } from './resolution.js';

/** Languages whose modules are packages of several files, or paths into a crate: Go, Rust, Java, C#. */
export type PackageStyle = 'go' | 'rust' | 'java' | 'csharp';

const PACKAGE_STYLES = new Set<string>(['go', 'rust', 'java', 'csharp']);

export function isPackageStyle(style: LanguageSpec['moduleStyle'] | undefined): style is PackageStyle {
  return style !== undefined && PACKAGE_STYLES.has(style);
}

/**
 * Symbols that bind no name at the top of their file: a member defined away from its type (Go's
 * `func (m Money) Add`, C++'s `Money::add`), and the package clause or namespace a Go, Java or C#
 * file declares, which must not hide a class of the same name.
 */
export function bindsNoName(symbol: SymbolFact | undefined, path: string): boolean {
  if (!symbol) return false;
  if (symbol.memberOf !== undefined) return true;
  const style = styleOf(path);
  return symbol.kind === 'module' && (style === 'go' || style === 'java' || style === 'csharp');
}

/** What the package resolver asks of the resolution context (resolve.ts). */
export interface PackageHost {
  readonly store: GraphStore;
  readonly fileIds: Map<string, number>;
  pathOf(fileId: number): string;
  factsOf(fileId: number): FileFacts;
  topLevelNamed(fileId: number, name: string): StoredSymbol[];
  memberOf(owner: StoredSymbol, name: string): StoredSymbol | undefined;
  lookupExport(fileId: number, name: string, seen?: Set<string>): Target | undefined;
}

type Found = { target: Target; via: 'local' | 'import' };

const TYPE_KINDS = new Set(['class', 'interface', 'enum', 'struct', 'type']);
/** Members reach this far into nested names (`a.b.C.D.m`); deeper is generated code, not a path. */
const MAX_PATH = 16;

/**
 * Modules that are not one file. A Go package is the folder an import path names under its
 * go.mod's module path; a Java package and a C# namespace are every file declaring it; a Rust
 * module is the file (or inline `mod`) a `crate::`/`self::`/`super::` path leads to. Files of one
 * package see each other's top-level names without importing them, and an import can mean all
 * of them. State lives for one resolution batch, like the context that owns it.
 */
export class PackageResolver {
  private goModules?: GoModule[];
  private folders?: Map<string, number[]>;
  private readonly declaring = new Map<string, number[]>();
  private readonly nestedTypes = new Map<number, Map<string, StoredSymbol>>();
  private readonly crates = new Map<string, string | undefined>();
  private readonly outside = new Map<string, StoredSymbol | undefined>();
  private statements?: ReturnType<PackageResolver['prepare']>;

  constructor(private readonly host: PackageHost) {}

  private prepare() {
    const db = this.host.store.db;
    return {
      declaring: db.prepare(
        `SELECT DISTINCT s.file_id AS id FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.qualified_name = ? AND s.kind = 'module' AND f.language = ? ORDER BY f.path`,
      ),
      // Members defined away from their type: the CONTAINS edges resolve.ts draws for `memberOf`.
      attached: db.prepare(
        `SELECT s.* FROM edges e JOIN symbols s ON s.id = e.target_id
         WHERE e.source_id = ? AND e.kind = 'CONTAINS' AND s.name = ? AND s.parent_id IS NULL LIMIT 1`,
      ),
      // The other parts of a C# partial class: same name and kind, in a file declaring one of its namespaces.
      partsOf: db.prepare(
        `SELECT s.id FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.qualified_name = @name AND s.kind = @kind AND f.language = 'csharp' AND s.id != @id
           AND s.file_id IN (SELECT m.file_id FROM symbols m JOIN json_each(@namespaces) n ON m.qualified_name = n.value
                             WHERE m.kind = 'module')
         LIMIT 64`,
      ),
    };
  }

  private get sql() {
    this.statements ??= this.prepare();
    return this.statements;
  }

  /** Forgets what was read while the structure pass was still drawing edges. */
  forget(): void {
    this.outside.clear();
  }

  /** The files an import names, most likely first: a Go package's, a namespace's, a class's own. */
  moduleFiles(fromFile: string, specifier: string): number[] {
    switch (styleOf(fromFile)) {
      case 'go':
        return this.goPackageFiles(fromFile, specifier);
      case 'rust': {
        const found = this.rustPath(fromFile, specifier.split('::'));
        return found ? [targetFile(found)] : [];
      }
      case 'java':
      case 'csharp': {
        const files = this.declaringFiles(fromFile, specifier);
        if (files.length > 0) return files;
        const found = this.qualified(fromFile, specifier);
        return found ? [targetFile(found)] : [];
      }
      default:
        return [];
    }
  }

  /**
   * What an IMPORTS edge of `fact` points to: the files its bound names come from (a Java class
   * import, a Rust `use`), else every file of the package it names (a Go import, a C# using).
   */
  importFiles(fromFile: string, fact: ImportFact): number[] {
    const files = new Set<number>();
    for (const binding of fact.bindings) {
      if (binding.imported === undefined) continue;
      const found = this.bindingTarget(fromFile, fact, binding.imported);
      if (found) files.add(targetFile(found));
    }
    return files.size > 0 ? [...files] : this.moduleFiles(fromFile, fact.specifier);
  }

  /** What one name an import binds means (`imported` undefined: the package or module itself). */
  bindingTarget(
    fromFile: string,
    fact: ImportFact,
    imported: string | undefined,
    seen = new Set<string>(),
  ): Target | undefined {
    const style = styleOf(fromFile);
    if (style === 'rust') {
      // `seen` is passed on: `pub use` chains through other modules can loop.
      const segments = [...fact.specifier.split('::'), ...(imported !== undefined ? [imported] : [])];
      return this.rustPath(fromFile, segments, seen);
    }
    if (style === 'go') {
      const [first] = this.goPackageFiles(fromFile, fact.specifier);
      return first !== undefined ? { module: first } : undefined;
    }
    // Java and C# write the whole name: `import a.b.Money` binds Money, `using M = A.B;` binds M.
    const files = imported === undefined ? this.declaringFiles(fromFile, fact.specifier) : [];
    if (files[0] !== undefined) return { module: files[0] };
    return this.qualified(fromFile, fact.specifier);
  }

  /** A top-level name in the other files of the package `fileId` is in: what importing the package gives too. */
  peerExport(fileId: number, name: string): StoredSymbol | undefined {
    const path = this.host.pathOf(fileId);
    if (!isPackageStyle(styleOf(path))) return undefined;
    return this.namedIn(this.peersOf(fileId, path), name);
  }

  /**
   * What a name a file does not bind means: a top-level name of its own package, a nested type
   * of the file, a name a star import (Java `.*`, C# `using`, Go's dot import, Rust `use …::*`)
   * makes visible, or a qualified name (`com.bank.Money`, `crate.money.Money`).
   */
  scopeLookup(fileId: number, name: string): Found | undefined {
    const path = this.host.pathOf(fileId);
    const style = styleOf(path);
    if (!isPackageStyle(style)) return undefined;
    if (style === 'rust' && /^(crate|self|super)(\.|$)/.test(name)) {
      const found = this.rustPath(path, name.split('.'));
      return found ? { target: found, via: 'import' } : undefined;
    }
    if (!name.includes('.')) {
      const nested = this.nestedType(fileId, name);
      if (nested) return { target: { symbol: nested }, via: 'local' };
      const peer = this.namedIn(this.scopeFiles(fileId, path), name);
      if (peer) return { target: { symbol: peer }, via: 'local' };
      for (const fact of this.host.factsOf(fileId).imports) {
        if (!fact.star) continue;
        const found = this.starMember(path, fact, name);
        if (found) return { target: found, via: 'import' };
      }
      return undefined;
    }
    const found = style === 'java' || style === 'csharp' ? this.qualified(path, name) : undefined;
    return found ? { target: found, via: 'import' } : undefined;
  }

  /**
   * A member of `owner` declared away from its type: a Go method in another file of the
   * package, a Rust impl block in another module, attached to it by their `memberOf`.
   */
  outsideMember(owner: StoredSymbol, name: string): StoredSymbol | undefined {
    const key = `${owner.id}:${name}`;
    if (this.outside.has(key)) return this.outside.get(key);
    const row = this.sql.attached.get(owner.id, name) as Parameters<typeof toSymbol>[0] | undefined;
    const found = row ? toSymbol(row) : undefined;
    this.outside.set(key, found);
    return found;
  }

  /** The other parts of a C# partial class (same qualified name, in a file sharing a namespace). */
  otherParts(owner: StoredSymbol | undefined): number[] {
    if (
      !owner ||
      !/\bpartial\b/.test(owner.signature) ||
      styleOf(this.host.pathOf(owner.fileId)) !== 'csharp'
    ) {
      return [];
    }
    const parts = this.sql.partsOf.all({
      name: owner.qualifiedName,
      kind: owner.kind,
      id: owner.id,
      namespaces: JSON.stringify(this.declaredModules(owner.fileId)),
    }) as { id: number }[];
    return parts.map((part) => part.id);
  }

  /** The first exported symbol of that name among `files`, else the first of any export flag. */
  private namedIn(files: number[], name: string): StoredSymbol | undefined {
    let fallback: StoredSymbol | undefined;
    for (const fileId of files) {
      for (const symbol of this.host.topLevelNamed(fileId, name)) {
        if (symbol.exported) return symbol;
        fallback ??= symbol;
      }
    }
    return fallback;
  }

  /** Files whose top-level names a file of the package sees, itself excepted. */
  private peersOf(fileId: number, path: string): number[] {
    switch (styleOf(path)) {
      case 'go': {
        // Tests see the package's code; the package does not see its tests.
        const test = path.endsWith('_test.go');
        return (this.folderFiles().get(folderOf(path)) ?? []).filter(
          (id) => id !== fileId && (test || !this.host.pathOf(id).endsWith('_test.go')),
        );
      }
      case 'java':
      case 'csharp':
        return [
          ...new Set(this.declaredModules(fileId).flatMap((module) => this.declaringFiles(path, module))),
        ].filter((id) => id !== fileId);
      default:
        return [];
    }
  }

  /** A C# file sees its namespaces' names and those of the namespaces around them; others, their package's. */
  private scopeFiles(fileId: number, path: string): number[] {
    if (styleOf(path) !== 'csharp') return this.peersOf(fileId, path);
    const enclosing = new Set<string>();
    for (const module of this.declaredModules(fileId)) {
      const parts = module.split('.');
      for (let cut = parts.length; cut > 0; cut--) enclosing.add(parts.slice(0, cut).join('.'));
    }
    return [...new Set([...enclosing].flatMap((module) => this.declaringFiles(path, module)))].filter(
      (id) => id !== fileId,
    );
  }

  /** The Java package or C# namespaces a file declares (its module symbols). */
  private declaredModules(fileId: number): string[] {
    return this.host
      .factsOf(fileId)
      .symbols.filter((symbol) => symbol.kind === 'module' && symbol.parent === undefined)
      .map((symbol) => symbol.qualifiedName);
  }

  /** Every file of the importing file's language that declares the package or namespace `module`. */
  private declaringFiles(fromFile: string, module: string): number[] {
    const language = languageOf(fromFile)?.id ?? '';
    const key = `${language}\0${module}`;
    let files = this.declaring.get(key);
    if (!files) {
      files = (this.sql.declaring.all(module, language) as { id: number }[]).map((row) => row.id);
      this.declaring.set(key, files);
    }
    return files;
  }

  /**
   * A dotted Java or C# name: the longest prefix that is a package or namespace, then the type
   * and members inside it (`com.bank.money.Money.of`). C# also tries it inside the namespaces
   * the file is in, as `Pricing.Money` means Bank.Pricing.Money within namespace Bank.
   */
  private qualified(fromFile: string, name: string): Target | undefined {
    const parts = name.split('.').slice(0, MAX_PATH);
    const fileId = this.host.fileIds.get(fromFile);
    const prefixes =
      styleOf(fromFile) === 'csharp' && fileId !== undefined ? ['', ...this.declaredModules(fileId)] : [''];
    for (const prefix of prefixes) {
      const full = prefix ? [...prefix.split('.'), ...parts] : parts;
      for (let cut = full.length - 1; cut >= 1; cut--) {
        const files = this.declaringFiles(fromFile, full.slice(0, cut).join('.'));
        if (files.length === 0) continue;
        const found = this.walk({ module: files[0] as number }, full.slice(cut), files);
        if (found) return found;
      }
    }
    return undefined;
  }

  /** Follows `names` from a module or symbol: exports of a module (or of its package `files`), then members. */
  private walk(start: Target, names: string[], files?: number[], seen?: Set<string>): Target | undefined {
    let target: Target | undefined = start;
    for (const [position, name] of names.entries()) {
      if (!target) return undefined;
      if ('module' in target) {
        const symbol: StoredSymbol | undefined =
          position === 0 && files ? this.namedIn(files, name) : undefined;
        target = symbol ? { symbol } : this.host.lookupExport(target.module, name, seen);
      } else {
        const member = this.host.memberOf(target.symbol, name);
        target = member ? { symbol: member } : undefined;
      }
    }
    return target;
  }

  /** A name a star import makes visible: of a package or module, or a member of a class (static imports). */
  private starMember(fromFile: string, fact: ImportFact, name: string): Target | undefined {
    const style = styleOf(fromFile);
    if (style === 'rust') {
      const module = this.rustPath(fromFile, fact.specifier.split('::'));
      return module ? this.walk(module, [name]) : undefined;
    }
    const files =
      style === 'go'
        ? this.goPackageFiles(fromFile, fact.specifier)
        : this.declaringFiles(fromFile, fact.specifier);
    if (files.length > 0) {
      const symbol = this.namedIn(files, name);
      return symbol ? { symbol } : undefined;
    }
    const owner = style === 'go' ? undefined : this.qualified(fromFile, fact.specifier);
    return owner && 'symbol' in owner ? this.walk(owner, [name]) : undefined;
  }

  /** A type declared inside another in this file (`Inner` used within `Outer`, a Rust type in an inline module). */
  private nestedType(fileId: number, name: string): StoredSymbol | undefined {
    let byName = this.nestedTypes.get(fileId);
    if (!byName) {
      byName = new Map();
      for (const symbol of this.host.store.symbolsOf(fileId)) {
        if (symbol.parentId !== null && TYPE_KINDS.has(symbol.kind) && !byName.has(symbol.name))
          byName.set(symbol.name, symbol);
      }
      this.nestedTypes.set(fileId, byName);
    }
    return byName.get(name);
  }

  private folderFiles(): Map<string, number[]> {
    if (!this.folders) {
      this.folders = new Map();
      for (const [file, id] of [...this.host.fileIds].sort(([a], [b]) => a.localeCompare(b))) {
        if (!file.endsWith('.go')) continue;
        const folder = folderOf(file);
        this.folders.set(folder, [...(this.folders.get(folder) ?? []), id]);
      }
    }
    return this.folders;
  }

  /** The non-test Go files of the folder an import path names, under go.mod's module path or vendor/. */
  private goPackageFiles(fromFile: string, importPath: string): number[] {
    this.goModules ??= [...this.host.fileIds]
      .filter(([file]) => file === 'go.mod' || file.endsWith('/go.mod'))
      .flatMap(([file, id]) => {
        const module = this.host.factsOf(id).symbols.find((symbol) => symbol.kind === 'module');
        return module ? [{ folder: folderOf(file), path: module.name }] : [];
      });
    for (const folder of goImportFolders(importPath, this.goModules, fromFile)) {
      const files = (this.folderFiles().get(folder) ?? []).filter(
        (id) => !this.host.pathOf(id).endsWith('_test.go'),
      );
      if (files.length > 0) return files;
    }
    return [];
  }

  /** The folder of the crate a Rust file belongs to: the nearest one up holding lib.rs or main.rs. */
  private crateFolder(file: string): string | undefined {
    let folder = folderOf(file);
    if (this.crates.has(folder)) return this.crates.get(folder);
    const start = folder;
    let found: string | undefined;
    for (;;) {
      const prefix = folder === '.' ? '' : `${folder}/`;
      if (this.host.fileIds.has(`${prefix}lib.rs`) || this.host.fileIds.has(`${prefix}main.rs`)) {
        found = folder;
        break;
      }
      if (folder === '.') break;
      folder = folderOf(folder);
    }
    this.crates.set(start, found);
    return found;
  }

  /**
   * A Rust path (`crate money Money`, `self money`, `super Account`) from `fromFile`: the longest
   * prefix that is a module file of the crate, then the items and inline modules inside it. A
   * path that starts elsewhere names another crate, which is not followed.
   */
  private rustPath(fromFile: string, written: string[], seen?: Set<string>): Target | undefined {
    const crate = this.crateFolder(fromFile);
    const [first = '', ...rest] = written;
    if (crate === undefined) return undefined;
    const here = rustModulePath(fromFile, crate);
    let segments: string[];
    if (first === 'crate') segments = rest;
    else if (first === 'self') segments = [...here, ...rest];
    else if (first === 'super') {
      let ups = 1;
      while (rest[ups - 1] === 'super') ups++;
      segments = [...here.slice(0, Math.max(0, here.length - ups)), ...rest.slice(ups - 1)];
    } else return undefined;
    segments = segments.slice(0, MAX_PATH);
    for (let cut = segments.length; cut >= 0; cut--) {
      const file = rustModuleFiles(crate, segments.slice(0, cut))
        .map((candidate) => this.host.fileIds.get(candidate))
        .find((id) => id !== undefined);
      if (file !== undefined) return this.walk({ module: file }, segments.slice(cut), undefined, seen);
    }
    return undefined;
  }
}

function styleOf(file: string): LanguageSpec['moduleStyle'] | undefined {
  return languageOf(file)?.moduleStyle;
}

function folderOf(file: string): string {
  return path.posix.dirname(file);
}

/** The file a resolved import lives in: the module's own, or the one declaring the symbol. */
function targetFile(target: Target): number {
  return 'module' in target ? target.module : target.symbol.fileId;
}

/**
 * Files whose imports the files new to the index may satisfy or widen: those importing the Go
 * package, Java package or C# namespace a new file joins (by the import path or name they wrote,
 * found or not), and Rust files with a crate path that led to no module yet. One call per batch:
 * a first index adds every file at once.
 */
export function importersOfNewFiles(
  store: GraphStore,
  added: readonly { path: string; facts: FileFacts }[],
): number[] {
  const styles = new Set(added.map((file) => styleOf(file.path)));
  const found = new Set<number>();
  const collect = (rows: unknown[]) => {
    for (const row of rows as { id: number }[]) found.add(row.id);
  };
  if (styles.has('rust')) {
    collect(
      store.db
        .prepare(
          `SELECT DISTINCT i.file_id AS id FROM file_imports i JOIN files f ON f.id = i.file_id
           WHERE i.target_path IS NULL AND f.language = 'rust'
             AND (i.specifier LIKE 'crate::%' OR i.specifier LIKE 'self::%' OR i.specifier LIKE 'super%')`,
        )
        .all(),
    );
  }
  const modules = styles.has('go') ? goModulesOf(store) : [];
  const names = new Set<string>();
  for (const file of added) {
    const style = styleOf(file.path);
    if (style === 'go') for (const name of goImportPathsOf(modules, file.path)) names.add(name);
    if (style !== 'java' && style !== 'csharp') continue;
    for (const symbol of file.facts.symbols) {
      if (symbol.kind === 'module' && symbol.parent === undefined) names.add(symbol.qualifiedName);
    }
  }
  if (names.size === 0) return [...found];
  // An import names the package itself, or (Java, C#) something in it: `com.bank.money.Money`.
  collect(
    store.db
      .prepare(
        `SELECT DISTINCT i.file_id AS id FROM file_imports i JOIN json_each(@names) n
         ON i.specifier = n.value OR substr(i.specifier, 1, length(n.value) + 1) = n.value || '.'`,
      )
      .all({ names: JSON.stringify([...names]) }),
  );
  return [...found];
}

const isGoModule = (relative: string) => relative === 'go.mod' || relative.endsWith('/go.mod');

/**
 * Every Go file, when one of these paths is a go.mod: its module path is how every import path
 * under it maps to a folder, so an edit, a new go.mod or a removed one can change any Go import.
 */
export function goFilesIfModulesChanged(store: GraphStore, paths: Iterable<string>): number[] {
  if (![...paths].some(isGoModule)) return [];
  return store
    .allFiles()
    .filter((file) => file.language === 'go')
    .map((file) => file.id);
}

/** Every go.mod of the root, as the folder it is in and the module path it declares. */
function goModulesOf(store: GraphStore): GoModule[] {
  return store.allFiles().flatMap((stored) => {
    if (!isGoModule(stored.path)) return [];
    const module = store.factsOf(stored.id).symbols.find((symbol) => symbol.kind === 'module')?.name;
    return module ? [{ folder: folderOf(stored.path), path: module }] : [];
  });
}

/** The import paths a Go file's folder has, under each go.mod above it. */
function goImportPathsOf(modules: readonly GoModule[], file: string): string[] {
  const folder = folderOf(file);
  return modules.flatMap((module) => {
    const inside = module.folder === '.' ? folder : path.posix.relative(module.folder, folder);
    if (inside.startsWith('..')) return [];
    return [inside === '.' ? module.path : `${module.path}/${inside}`];
  });
}
