import type { StoredSymbol } from './graph-store.js';

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

/** Kinds of symbol a type name can name: what `new X()` makes, what a field's or a result's type is. */
export const TYPE_KINDS = new Set(['class', 'interface', 'enum', 'struct', 'type']);
