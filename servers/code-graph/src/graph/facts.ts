/**
 * What one file says about itself, as the extractors read it from the syntax tree. Facts name
 * things by text; the resolver turns names into edges between stored symbols.
 */

export const SYMBOL_KINDS = [
  'file',
  'module',
  'class',
  'interface',
  'struct',
  'enum',
  'function',
  'method',
  'variable',
  'constant',
  'type',
  /** An HTTP route (`GET /users/:id`), found by the route pass in src/graph/routes/. */
  'route',
] as const;
export type SymbolKind = (typeof SYMBOL_KINDS)[number];

export const EDGE_KINDS = ['CALLS', 'IMPORTS', 'EXTENDS', 'IMPLEMENTS', 'REFERENCES', 'CONTAINS'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

export interface SymbolFact {
  name: string;
  /** `Money.multiplyByRate`: the name inside its file, through its enclosing classes. */
  qualifiedName: string;
  kind: Exclude<SymbolKind, 'file'>;
  startLine: number;
  endLine: number;
  signature: string;
  doc: string;
  exported: boolean;
  /** Index into the file's symbol list of the enclosing class or module, if any. */
  parent?: number;
  /** The type a function or method is declared to return, when it names one. */
  returns?: string;
  /**
   * Declares what is defined elsewhere (a C prototype, a C++ method declared in its class and
   * defined outside it): calls bound to it are bound to the definition when one is found.
   */
  declaration?: boolean;
  /**
   * For a member defined outside the body of its class or namespace (C++ `Money Money::add(…) {…}`):
   * the owner as written (`Money`, `bank.Money`), resolved like any type name.
   */
  memberOf?: string;
}

/** One name an import statement binds in the importing file. */
export interface ImportBinding {
  /** The exported name taken (`default` for a default import); undefined for a namespace binding. */
  imported?: string;
  /** The name it is bound to locally. */
  local: string;
}

export interface ImportFact {
  /** The module as written: `./money`, `../lib`, `lodash`, `.models` or `pkg.models`. */
  specifier: string;
  line: number;
  bindings: ImportBinding[];
  /** `export … from`: the names pass through this file to whoever imports it. */
  reexport?: boolean;
  /** `export * from` (or Python's `from m import *`): every exported name of the module. */
  star?: boolean;
}

/**
 * What the syntax says about the receiver of a member call. `self` is `this` in a class
 * method (or Python's `self`); `typed` is a receiver whose type the syntax names (an annotated
 * parameter or local, or a local assigned `new X()`); `super` starts the lookup at the base
 * class; `field` is `this.x`, typed by the field's annotation in the class or a base class;
 * `result` is what a call returns (`a.add(b).add(c)`, or a local assigned a call); `name` is a bare identifier
 * whose type is unknown (a namespace import, a class for a static call, or anything else).
 */
export type Receiver =
  | { kind: 'self' }
  | { kind: 'super' }
  | { kind: 'typed'; type: string }
  | { kind: 'name'; name: string }
  | { kind: 'field'; name: string }
  | { kind: 'result'; call: CallShape }
  /**
   * A field of any receiver whose class is known (`a.balance` with `a *Account` a Go receiver or
   * parameter, `self.inner.balance` in Rust), typed by the field's declared type.
   */
  | { kind: 'member'; of: Receiver; name: string }
  | { kind: 'unknown' };

/** A call as the syntax shows it; a call's result is a receiver whose type is the callee's declared return type. */
export interface CallShape {
  callee: string;
  receiver?: Receiver;
  construct?: boolean;
}

export interface CallFact extends CallShape {
  /** Index of the innermost enclosing symbol, or undefined for top-level code (the file). */
  caller?: number;
  line: number;
}

export interface TypeUseFact {
  /** The symbol whose declaration uses the type. */
  user?: number;
  line: number;
  /** `Money` or `ns.Money`. */
  type: string;
  relation: 'EXTENDS' | 'IMPLEMENTS' | 'REFERENCES';
}

export interface FileFacts {
  symbols: SymbolFact[];
  imports: ImportFact[];
  calls: CallFact[];
  typeUses: TypeUseFact[];
  /**
   * Declared field types per class: class symbol index → field name → type name. Field names come
   * from source code (`constructor`, `__proto__`): read and write them with fieldType and setFieldType.
   */
  fields: Record<number, Record<string, string>>;
  /** The local name `export default` gives out, when it names one. */
  defaultExport?: string;
  /** C++ `using namespace bank;`: namespaces whose names the file uses unqualified (`bank`, `bank.detail`). */
  usingNamespaces?: string[];
  /** HTTP routes, mounts and client calls, when the route pass (src/graph/routes/) found any. */
  http?: HttpFacts;
}

/** A piece of a URL as the code builds it: literal text, or a value the syntax does not give (`${id}`, `{id}`, `%d`). */
export type UrlPiece = string | { placeholder: string };

export interface HttpRouteFact {
  /** The route's own entry in `symbols` (kind `route`). */
  symbol: number;
  /** Upper case; `ANY` when the route takes every method. */
  method: string;
  /** The path as declared, with the prefixes of routers declared in the same file: `/users/:id`. */
  path: string;
  framework: string;
  /**
   * What a mount names to prefix this route: its router or app variable, the plugin function it
   * is declared in, or '' for the file itself (Django's urlpatterns).
   */
  on: string;
  /** The handler references, each also a call from the route symbol at that line. */
  handlers: { line: number; callee: string }[];
}

/** `app.use('/api', router)`, `include_router(r, prefix=…)`, `path('api/', include('users.urls'))`. */
export interface HttpMountFact {
  /** The router or app mounted on, named as routes name theirs. */
  on: string;
  prefix: string;
  /** A name in this file (`usersRouter`, `items.router`), a module (`users.urls`), or every route of a framework (Nest's global prefix). */
  target: { name: string } | { module: string } | { framework: string };
  line: number;
}

export interface HttpClientFact {
  /** Index of the innermost enclosing symbol, as for calls. */
  caller?: number;
  line: number;
  /** Upper case; undefined when the code computes it. */
  method?: string;
  url: UrlPiece[];
  library: string;
  /** `api.get(…)` on a client instance imported from another file, whose base URL the linker prepends. */
  instance?: string;
}

export interface HttpFacts {
  routes: HttpRouteFact[];
  mounts: HttpMountFact[];
  clients: HttpClientFact[];
  /** Client instances with a base URL (`axios.create({ baseURL })`), by variable name. */
  instances: { name: string; baseUrl: UrlPiece[] }[];
  /** `module.exports = router`: what a default import of this file gets. */
  moduleExports?: string;
}

/**
 * The declared type of field `name` of the class at `owner`. Own keys only: a field named
 * `constructor` or `toString` must not find Object.prototype's (facts come back from JSON as
 * plain objects).
 */
export function fieldType(facts: FileFacts, owner: number, name: string): string | undefined {
  const fields = facts.fields[owner];
  return fields && Object.hasOwn(fields, name) ? fields[name] : undefined;
}

/** Records that field `name` of the class at `owner` is declared with type `type`. */
export function setFieldType(facts: FileFacts, owner: number, name: string, type: string): void {
  // No prototype, so `__proto__` is a field like any other rather than a setter.
  const fields = facts.fields[owner] ?? Object.create(null);
  fields[name] = type;
  facts.fields[owner] = fields;
}
