import { leadingComment } from '../doc-comments.js';
import type {
  CallFact,
  CallShape,
  FileFacts,
  HttpFacts,
  HttpMountFact,
  SymbolFact,
  UrlPiece,
} from '../facts.js';
import { endLineOf, lineOf, type SyntaxNode, signatureOf } from '../syntax.js';
import type { HttpSyntax } from './http-syntax.js';

/** One framework family's reader: a cheap test of the file first, since most files use none. */
export interface HttpDetector {
  applies(path: string, source: string): boolean;
  detect(file: HttpFile): void;
}

/** What a route runs: a function passed by name, a symbol the file declares, or a function written inline. */
export type RouteHandler = { reference: SyntaxNode } | { symbol: number } | { inline: SyntaxNode };

export interface RouteSpec {
  method: string;
  path: string;
  framework: string;
  on: string;
  /** Where the route is declared; its lines, signature (the text before `body`) and doc come from there. */
  declaration: SyntaxNode | Pick<SymbolFact, 'startLine' | 'endLine' | 'signature' | 'doc'>;
  body?: SyntaxNode | null;
  handlers: RouteHandler[];
}

/**
 * One file's route pass: what the detectors find, written into the file's facts. A route is a
 * symbol of kind `route`; each handler it names is a call from that symbol, so the resolver binds
 * it like any call; the calls inside an inline handler move to the route, which runs them.
 */
export class HttpFile {
  readonly http: HttpFacts = { routes: [], mounts: [], clients: [], instances: [] };
  /** The extractor's calls by line, indexed before the pass adds handler calls of its own. */
  private readonly callsByLine = new Map<number, CallFact[]>();
  private readonly moved = new Set<CallFact>();
  private readonly claimed = new Set<number>();

  constructor(
    readonly path: string,
    readonly root: SyntaxNode,
    readonly facts: FileFacts,
    readonly syntax: HttpSyntax,
  ) {
    for (const call of facts.calls) {
      const onLine = this.callsByLine.get(call.line);
      if (onLine) onLine.push(call);
      else this.callsByLine.set(call.line, [call]);
    }
  }

  /** Marks a call as read by one detector, so no other reads it again; false when one already did. */
  claim(node: SyntaxNode): boolean {
    if (this.claimed.has(node.id)) return false;
    this.claimed.add(node.id);
    return true;
  }

  addRoute(spec: RouteSpec): void {
    const name = `${spec.method} ${spec.path}`;
    const declared = spec.declaration;
    const place =
      'startLine' in declared
        ? {
            startLine: declared.startLine,
            endLine: declared.endLine,
            signature: declared.signature,
            doc: declared.doc,
          }
        : {
            startLine: lineOf(declared),
            endLine: endLineOf(declared),
            signature: signatureOf(declared, spec.body ?? null),
            doc: leadingComment(
              declared.parent?.type === 'expression_statement' ? declared.parent : declared,
            ),
          };
    const index = this.facts.symbols.length;
    this.facts.symbols.push({ name, qualifiedName: name, kind: 'route', ...place, exported: true });
    const handlers: { line: number; callee: string }[] = [];
    for (const handler of spec.handlers) {
      if ('inline' in handler) {
        this.moveCallsInto(handler.inline, index);
        continue;
      }
      const shape =
        'symbol' in handler
          ? this.symbolShape(handler.symbol)
          : this.syntax.referenceShape(handler.reference);
      if (!shape) continue;
      const line = 'symbol' in handler ? place.startLine : lineOf(handler.reference);
      this.facts.calls.push({ ...shape, caller: index, line });
      handlers.push({ line, callee: shape.callee });
    }
    this.http.routes.push({
      symbol: index,
      method: spec.method,
      path: spec.path,
      framework: spec.framework,
      on: spec.on,
      handlers,
    });
  }

  addMount(mount: HttpMountFact): void {
    this.http.mounts.push(mount);
  }

  addClient(
    call: SyntaxNode,
    client: { method?: string; url: UrlPiece[]; library: string; instance?: string },
  ): void {
    const caller = this.ownerOf(call);
    this.http.clients.push({
      ...(caller !== undefined && { caller }),
      line: lineOf(call),
      ...(client.method && { method: client.method.toUpperCase() }),
      url: client.url,
      library: client.library,
      ...(client.instance && { instance: client.instance }),
    });
  }

  addInstance(name: string, baseUrl: UrlPiece[]): void {
    this.http.instances.push({ name, baseUrl });
  }

  /** The declared symbol of that kind and name whose lines hold `line`, if any. */
  symbolAt(kinds: readonly string[], name: string, line: number): number | undefined {
    const index = this.facts.symbols.findIndex(
      (symbol) =>
        kinds.includes(symbol.kind) &&
        symbol.name === name &&
        symbol.startLine <= line &&
        line <= symbol.endLine,
    );
    return index >= 0 ? index : undefined;
  }

  /** The facts with what the pass found, when it found anything. */
  finish(): FileFacts {
    const { routes, mounts, clients, instances, moduleExports } = this.http;
    if (routes.length + mounts.length + clients.length + instances.length > 0 || moduleExports) {
      this.facts.http = this.http;
    }
    return this.facts;
  }

  /** A declared function or method as a call: `getItem`, or `UsersController.findOne` through its class. */
  private symbolShape(index: number): CallShape | undefined {
    const symbol = this.facts.symbols[index];
    if (!symbol) return undefined;
    const owner = symbol.parent !== undefined ? this.facts.symbols[symbol.parent] : undefined;
    return owner
      ? { callee: symbol.name, receiver: { kind: 'name', name: owner.qualifiedName } }
      : { callee: symbol.name };
  }

  private callsAt(line: number): CallFact[] {
    return this.callsByLine.get(line) ?? [];
  }

  /** The extractor's record of this call expression: same line, same callee, not yet moved. */
  private factOf(call: SyntaxNode): CallFact | undefined {
    const callee = this.syntax.calleeName(call);
    return callee === undefined
      ? undefined
      : this.callsAt(lineOf(call)).find((fact) => fact.callee === callee && !this.moved.has(fact));
  }

  private moveCallsInto(handler: SyntaxNode, routeIndex: number): void {
    for (const call of handler.descendantsOfType([...this.syntax.callTypes])) {
      const fact = this.factOf(call);
      if (!fact) continue;
      fact.caller = routeIndex;
      this.moved.add(fact);
    }
  }

  /** Which symbol a call is made in: the extractor's answer when it recorded the call, else the innermost declaration around it. */
  private ownerOf(call: SyntaxNode): number | undefined {
    const callee = this.syntax.calleeName(call);
    const recorded =
      callee !== undefined ? this.callsAt(lineOf(call)).find((fact) => fact.callee === callee) : undefined;
    if (recorded) return recorded.caller;
    const line = lineOf(call);
    let best: number | undefined;
    this.facts.symbols.forEach((symbol, index) => {
      if (symbol.startLine > line || line > symbol.endLine) return;
      const current = best !== undefined ? this.facts.symbols[best] : undefined;
      if (!current || symbol.endLine - symbol.startLine <= current.endLine - current.startLine) best = index;
    });
    return best;
  }
}
