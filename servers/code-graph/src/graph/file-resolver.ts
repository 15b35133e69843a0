import type { CallFact, CallShape, FileFacts, ImportFact, Receiver } from './facts.js';
import type { NewEdge, StoredSymbol } from './graph-store.js';
import type { NameRules } from './language-spec.js';
import { languageOf } from './languages.js';
import { RESOLUTIONS, type Resolution, type Target, TYPE_KINDS } from './resolution.js';
import type { ResolutionContext } from './resolution-context.js';
import { bindsNoName } from './resolve-packages.js';

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

/** Resolves one file's facts into edges, against the symbols of every file in the store. */
export class FileResolver {
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
