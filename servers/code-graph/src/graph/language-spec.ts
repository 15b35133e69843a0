import { createRequire } from 'node:module';
import path from 'node:path';
import type { Tree } from 'web-tree-sitter';
import type { FileFacts } from './facts.js';

const require = createRequire(import.meta.url);

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
  extract(tree: Tree, source: string): FileFacts;
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

export function grammarPath(language: LanguageSpec): string {
  return path.join(
    path.dirname(require.resolve(`${language.grammarPackage}/package.json`)),
    language.wasmFile,
  );
}
