import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Tree } from 'web-tree-sitter';
import type { FileFacts } from './facts.js';

const require = createRequire(import.meta.url);

/** Reads the facts of one file from its tree. */
export type Extract = (tree: Tree, source: string) => FileFacts;

/** Where a language's tags query comes from: the `queries/tags.scm` its grammar package ships, or one of ours. */
export type TagsSource = { package: string; file: string } | { text: string };

/**
 * One entry per language: where its grammar's `.wasm` lives (the one its official grammar
 * package ships), which files it parses, and the extractor that reads facts from its trees.
 * Adding a language is adding an entry here and, if no existing extractor fits, one extractor.
 */
export interface LanguageSpec {
  id: string;
  extensions: readonly string[];
  grammarPackage: string;
  wasmFile: string;
  /** Other files of the grammar package the language reads (its `queries/tags.scm`), shipped with the wasm. */
  grammarQueries?: readonly string[];
  /**
   * The extractor that reads facts from its trees, imported the first time a file of the
   * language is parsed: a server that parses nothing in its own thread (idle, or indexing in its
   * parse workers) never loads the extractors, nor web-tree-sitter, which they bring.
   */
  extractor(): Promise<Extract>;
  /** How an import specifier is turned into candidate files; see module-paths.ts. */
  moduleStyle:
    | 'ecmascript'
    | 'python'
    | 'c'
    | 'ruby'
    | 'php'
    | 'bash'
    | 'none'
    | 'go'
    | 'rust'
    | 'java'
    | 'csharp';
  /** How names resolve beyond imports that bind them, for languages that do it differently (see resolve.ts). */
  names?: NameRules;
  /** For an optional grammar: whether its package (and the tags query it is read with) is installed. */
  installed?: () => boolean;
  /** Whole file names it claims besides its extensions: Go's `go.mod`. */
  fileNames?: readonly string[];
}

/**
 * What C, C++, Ruby, PHP, Bash and the tags-driven languages do with names that TypeScript and
 * Python do not. Each rule is off unless set.
 */
export interface NameRules {
  /**
   * An import (`#include`, `require`, `include`, `source`) makes every name the imported file
   * defines visible, and the names of what it imports in turn.
   */
  inclusive?: boolean;
  /**
   * Names are qualified (`bank.Money`) and looked up from the enclosing namespaces, modules and
   * classes outward, across every file that reopens them.
   */
  nested?: boolean;
  /** A bare call inside a method may be a call of the class's own or inherited method (C++, Ruby, Scala). */
  implicitSelf?: boolean;
  /**
   * A name nothing visible defines is looked for in the whole root, by qualified name, then as
   * the only function of that name: Ruby constants are global once loaded, PHP classes autoload.
   */
  global?: boolean;
  /** A bare call that names no function runs a program or builtin outside the root (a shell command). */
  commands?: boolean;
}

/**
 * The folder of grammar files this package ships (`grammars/`): each language's `.wasm`,
 * gzip-compressed (a tenth of the size), and the tags queries, copied from the grammar packages
 * at build time (see tsup.config.ts), so an install needs none of those packages (hundreds of
 * megabytes of C sources and native builds).
 */
export const SHIPPED_GRAMMARS = path.join(
  path.dirname(require.resolve('@toolmesh/server-code-graph/package.json')),
  'grammars',
);

/** Where `file` of a grammar package goes in `grammars/`: a wasm by its own (unique) name, compressed; the rest under the package's name. */
export function shippedName(grammarPackage: string, file: string): string {
  return file.endsWith('.wasm') ? `${file}.gz` : path.join(grammarPackage, file);
}

/**
 * A grammar file as shipped in `grammars/` (`tree-sitter-python.wasm.gz`,
 * `tree-sitter-elixir/queries/tags.scm`), or, in a checkout not built yet, in the grammar package
 * itself (a development dependency).
 */
export function grammarFile(grammarPackage: string, file: string): string {
  const shipped = path.join(SHIPPED_GRAMMARS, shippedName(grammarPackage, file));
  if (existsSync(shipped)) return shipped;
  return path.join(path.dirname(require.resolve(`${grammarPackage}/package.json`)), file);
}

export function grammarPath(language: LanguageSpec): string {
  return grammarFile(language.grammarPackage, language.wasmFile);
}

/** The file of a tags query that comes in a grammar package. */
export function tagsQueryFile(source: { package: string; file: string }): string {
  return grammarFile(source.package, source.file);
}

/** Whether a tags query can be read: a package may be missing, or ship no tags file. */
export function tagsQueryInstalled(source: TagsSource): boolean {
  try {
    return 'text' in source || existsSync(tagsQueryFile(source));
  } catch {
    return false;
  }
}
