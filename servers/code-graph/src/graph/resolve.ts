import type { CallFact, CallShape, FileFacts, ImportFact, Receiver } from './facts.js';
import type { GraphStore, NewEdge, StoredSymbol } from './graph-store.js';
import { languageOf } from './languages.js';
import { moduleCandidates, submoduleSpecifier } from './module-paths.js';

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
  /** An import of a package outside the root, or a call into one: not an indexing gap. */
  external: 0,
  unresolved: 0,
} as const;
export type Resolution = keyof typeof RESOLUTIONS;

type Target = { symbol: StoredSymbol } | { module: number };

const RECEIVER_RESOLUTIONS: Record<'self' | 'typed' | 'field' | 'result', Resolution> = {
  self: 'self',
  typed: 'typed',
  field: 'field',
  result: 'returned',
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
    default:
      return '?';
  }
}

const TYPE_KINDS = new Set(['class', 'interface', 'enum', 'struct', 'type']);

/** State shared by every file resolved in one batch. */
class ResolutionContext {
  readonly fileIds: Map<string, number>;
  private readonly facts = new Map<number, FileFacts>();
  private readonly importTargets = new Map<string, number | undefined>();
  private readonly paths = new Map<number, string>();

  constructor(readonly store: GraphStore) {
    this.fileIds = new Map(store.allFiles().map((file) => [file.path, file.id]));
    for (const [path, id] of this.fileIds) this.paths.set(id, path);
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

  /** The file an import in `fromFile` means, if it is under the root. */
  importTarget(fromFile: string, specifier: string): number | undefined {
    const key = `${fromFile}\0${specifier}`;
    if (this.importTargets.has(key)) return this.importTargets.get(key);
    const style = languageOf(fromFile)?.moduleStyle ?? 'ecmascript';
    const found = moduleCandidates(style, fromFile, specifier)
      .map((candidate) => this.fileIds.get(candidate))
      .find((id) => id !== undefined);
    this.importTargets.set(key, found);
    return found;
  }

  /** What `name` means to a file that imports it from `fileId`, following re-exports. */
  lookupExport(fileId: number, name: string, seen = new Set<string>()): Target | undefined {
    const key = `${fileId}:${name}`;
    if (seen.has(key) || seen.size > 16) return undefined;
    seen.add(key);
    const facts = this.factsOf(fileId);
    const wanted = name === 'default' ? (facts.defaultExport ?? name) : name;
    const defined = this.topLevelNamed(fileId, wanted);
    const symbol = defined.find((candidate) => candidate.exported) ?? defined[0];
    if (symbol) return { symbol };
    const path = this.pathOf(fileId);
    // Python re-exports by importing: any name a module binds can be imported from it.
    const python = languageOf(path)?.moduleStyle === 'python';
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
    const moduleId = this.importTarget(fromFile, fact.specifier);
    if (imported === undefined) return moduleId !== undefined ? { module: moduleId } : undefined;
    const found = moduleId !== undefined ? this.lookupExport(moduleId, imported, seen) : undefined;
    if (found) return found;
    const style = languageOf(fromFile)?.moduleStyle ?? 'ecmascript';
    const submodule = submoduleSpecifier(style, fact.specifier, imported);
    const submoduleId = submodule !== undefined ? this.importTarget(fromFile, submodule) : undefined;
    return submoduleId !== undefined ? { module: submoduleId } : undefined;
  }

  private readonly resolvers = new Map<number, FileResolver>();
  // Lookups repeat across thousands of calls in a batch; each is asked of SQLite once.
  private readonly topLevelCache = new Map<number, Map<string, StoredSymbol[]>>();
  private readonly memberCache = new Map<string, StoredSymbol | undefined>();
  private readonly basesCache = new Map<number, number[]>();
  private readonly symbolCache = new Map<number, StoredSymbol | undefined>();
  private readonly callablesCache = new Map<string, StoredSymbol[]>();

  topLevelNamed(fileId: number, name: string): StoredSymbol[] {
    let byName = this.topLevelCache.get(fileId);
    if (!byName) {
      byName = new Map();
      for (const symbol of this.store.symbolsOf(fileId)) {
        if (symbol.parentId !== null || symbol.ordinal < 0) continue;
        byName.set(symbol.name, [...(byName.get(symbol.name) ?? []), symbol]);
      }
      this.topLevelCache.set(fileId, byName);
    }
    return byName.get(name) ?? [];
  }

  memberNamed(parentId: number, name: string): StoredSymbol | undefined {
    const key = `${parentId}:${name}`;
    if (!this.memberCache.has(key)) this.memberCache.set(key, this.store.memberNamed(parentId, name));
    return this.memberCache.get(key);
  }

  /** What a class extends and implements; only read once the structure pass is done. */
  basesOf(symbolId: number): number[] {
    let bases = this.basesCache.get(symbolId);
    if (!bases) {
      bases = this.store.basesOf(symbolId);
      this.basesCache.set(symbolId, bases);
    }
    return bases;
  }

  /** Bases read during the structure pass may have been incomplete. */
  forgetBases(): void {
    this.basesCache.clear();
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
    const type = this.factsOf(owner.fileId).fields[owner.ordinal]?.[name];
    if (type) return this.resolverFor(owner.fileId).typeSymbol(type);
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
    return returns ? this.resolverFor(callable.fileId).typeSymbol(returns) : undefined;
  }

  /** A method or field of a class, looked up through what it extends and implements. */
  memberOf(owner: StoredSymbol, name: string, depth = 0): StoredSymbol | undefined {
    const own = this.memberNamed(owner.id, name);
    if (own || depth > 8) return own;
    for (const baseId of this.basesOf(owner.id)) {
      const base = this.symbolById(baseId);
      const found = base && this.memberOf(base, name, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
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

  constructor(
    private readonly context: ResolutionContext,
    private readonly fileId: number,
  ) {
    const all = context.store.symbolsOf(fileId);
    this.fileNode = all[0] as StoredSymbol;
    this.symbols = all.slice(1);
    this.facts = context.factsOf(fileId);
    this.path = context.pathOf(fileId);
    for (const symbol of all) this.byId.set(symbol.id, symbol);
    for (const symbol of this.symbols) {
      if (symbol.parentId === null && !this.topLevel.has(symbol.name)) this.topLevel.set(symbol.name, symbol);
    }
    for (const fact of this.facts.imports) {
      for (const binding of fact.bindings)
        this.bindings.set(binding.local, { fact, imported: binding.imported });
    }
  }

  private edge(edge: Omit<NewEdge, 'fileId'>): void {
    this.context.store.addEdge({ ...edge, fileId: this.fileId });
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
      const targetFile = this.context.importTarget(this.path, fact.specifier);
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
    for (const use of this.facts.typeUses) {
      if (use.relation === 'REFERENCES') continue;
      const found = this.resolveName(use.type);
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
  }

  /** CALLS and REFERENCES, once every file's structure is in place. */
  resolveUses(): void {
    for (const call of this.facts.calls) this.resolveCall(call);
    const seen = new Set<string>();
    for (const use of this.facts.typeUses) {
      if (use.relation !== 'REFERENCES') continue;
      const found = this.resolveName(use.type);
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
    const { target, resolution, text } = this.shapeTarget(call, call.caller, 0);
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
      const found = this.resolveName(call.callee);
      if (found && 'symbol' in found.target)
        return { target: found.target.symbol, resolution: found.via, text };
      const candidates = this.context.callablesNamed(call.callee);
      return { target: candidates.length === 1 ? candidates[0] : undefined, resolution: 'unique-name', text };
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
        const found = this.resolveName(receiver.name);
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
        return this.typeSymbol(receiver.type);
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
      default:
        return undefined;
    }
  }

  /** A type name written in this file, as the class, interface or alias it names. */
  typeSymbol(name: string): StoredSymbol | undefined {
    const found = this.resolveName(name);
    const symbol = found && 'symbol' in found.target ? found.target.symbol : undefined;
    return symbol && TYPE_KINDS.has(symbol.kind) ? symbol : undefined;
  }

  private enclosingClass(ordinal: number | undefined): StoredSymbol | undefined {
    let symbol = ordinal !== undefined ? this.symbols[ordinal] : undefined;
    while (symbol && !TYPE_KINDS.has(symbol.kind)) {
      symbol = symbol.parentId !== null ? this.byId.get(symbol.parentId) : undefined;
    }
    return symbol;
  }

  /**
   * What a name written in this file refers to: an import binding, a top-level definition,
   * or for `a.b.C` the longest prefix that is one of those, then members or exports of it.
   */
  resolveName(name: string): { target: Target; via: 'local' | 'import' } | undefined {
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
    return local ? { target: { symbol: local }, via: 'local' } : undefined;
  }
}

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/**
 * Rebuilds the edges of `fileIds` in two passes: structure first for all of them, so that
 * calls resolved in the second pass see every class's bases.
 */
export function resolveFiles(store: GraphStore, fileIds: Iterable<number>): void {
  const context = new ResolutionContext(store);
  const resolvers: FileResolver[] = [];
  for (const fileId of new Set(fileIds)) {
    if (store.fileNodeOf(fileId) === undefined) continue;
    store.clearEdgesOf(fileId);
    resolvers.push(context.resolverFor(fileId));
  }
  for (const resolver of resolvers) resolver.resolveStructure();
  context.forgetBases();
  for (const resolver of resolvers) resolver.resolveUses();
  store.refreshImportance();
}
