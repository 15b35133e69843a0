/**
 * The messages between the precise upgrader (main thread) and the checker worker. The worker
 * names declarations the way the syntactic extractor names symbols (file, qualified name, line);
 * the main thread maps those names to stored symbol ids, so no id crosses the thread boundary.
 */

/** A declaration, as the store would know it. */
export interface DeclarationRef {
  /** Root-relative, posix separators. */
  path: string;
  /** `Money.multiplyByRate`, as extract-ecmascript.ts qualifies names. */
  qualifiedName: string;
  /** The line of the declaration's name, to tell apart symbols that share a qualified name. */
  line: number;
}

/** A declaration in the checked file that may own calls and type uses, with the next one out. */
export interface OwnerRef {
  qualifiedName: string;
  line: number;
  /** Index of the enclosing owner in the file's `owners`, if any. */
  parent?: number;
}

/**
 * What the checker says a call reaches: declarations the store may hold; code outside the root
 * (the standard library, packages); a value local to a function (a parameter, a local closure);
 * or nothing it can vouch for (an `any` receiver, a JavaScript `exports.x = …` assignment).
 */
export type CallOutcome =
  | { kind: 'symbols'; targets: DeclarationRef[] }
  | { kind: 'external' }
  | { kind: 'local' }
  | { kind: 'unknown' };

export interface CheckedCall {
  line: number;
  /** The callee's simple name, as the syntactic pass records it (`multiplyByRate`). */
  name: string;
  /** The callee as written, shortened: `samplePrice.multiplyByRate`. */
  text: string;
  /** Index into the file's `owners` of the innermost declaration around the call. */
  owner?: number;
  outcome: CallOutcome;
}

export interface CheckedTypeUse {
  relation: 'EXTENDS' | 'IMPLEMENTS' | 'REFERENCES';
  line: number;
  name: string;
  text: string;
  owner?: number;
  target: DeclarationRef | 'external';
}

export interface CheckedFile {
  path: string;
  /** sha1 of the bytes the checker read: results for a file that changed since are dropped. */
  hash: string;
  owners: OwnerRef[];
  calls: CheckedCall[];
  typeUses: CheckedTypeUse[];
}

export interface CheckRequest {
  type: 'check';
  /** Every TypeScript and JavaScript file in the store, root-relative: what the programs cover. */
  files: string[];
  /** The files to check now. */
  targets: string[];
  /** Files whose text changed since the worker last read them. */
  changed: string[];
  /** The store's content hash of each of `files`: a text the worker read with another is read again. */
  hashes: Record<string, string>;
  /** Read the project configuration and every file again (first run, or a full re-index). */
  refresh: boolean;
  /** Keep each program (without its checker) for the next request's `oldProgram` reuse. */
  keepPrograms: boolean;
  /**
   * The name of every symbol the store holds. A member call on what code outside the root
   * returns (`expect(x).toEqual(y)`) whose name is none of these cannot reach a stored symbol:
   * it is answered external without the type inference its receiver would need.
   */
  storedNames: string[];
  /**
   * When the worker's heap holds more than this once a program is checked, it checks no more
   * programs: its answer lists the targets left, for a fresh worker, which starts with nothing.
   * A checker's memory is not all given back when its program goes; a worker's is, when it ends.
   */
  heapBudgetBytes?: number;
  /** This worker's part of a check split between workers (see Share). */
  share?: Share;
  /**
   * With `share`: one flag per target, shared by the workers, set (Atomics) by the one that
   * checks it, so that a worker done with its group takes the others' last files its program
   * holds and each file is checked once.
   */
  claims?: SharedArrayBuffer;
}

/**
 * One of `count` workers' part of a split check: each worker splits the targets of every program
 * the same way (splitByClosure, from the same file texts), checks its group, and builds its
 * programs over that group's files only, so that each loads its group's import closures and
 * little of the others'.
 */
export interface Share {
  index: number;
  count: number;
}

/**
 * Builds the programs over `files` ahead of the first check, while the syntactic index still
 * runs: the check that follows (without `refresh`) reuses them.
 */
export interface PrepareRequest {
  type: 'prepare';
  files: string[];
  /** The part of the check to come this worker will do: only its programs are built. */
  share?: Share;
}

export type WorkerRequest = CheckRequest | PrepareRequest;

export type WorkerMessage =
  | { type: 'progress'; phase: 'building' | 'checking'; partition: string; done: number; total: number }
  | { type: 'files'; files: CheckedFile[] }
  | { type: 'done'; partitions: number; checked: number; left?: string[] }
  | { type: 'failed'; message: string };
