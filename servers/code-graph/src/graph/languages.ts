import { createRequire } from 'node:module';
import path from 'node:path';
import { extractEcmascript } from './extract-ecmascript.js';
import { extractPython } from './extract-python.js';
import type { FileFacts } from './facts.js';
import type { SyntaxTree } from './syntax.js';

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
  extract(tree: SyntaxTree, source: string): FileFacts;
  /** How an import specifier is turned into candidate files; see module-paths.ts. */
  moduleStyle: 'ecmascript' | 'python';
}

export const LANGUAGES: readonly LanguageSpec[] = [
  {
    id: 'typescript',
    extensions: ['.ts', '.mts', '.cts'],
    grammarPackage: 'tree-sitter-typescript',
    wasmFile: 'tree-sitter-typescript.wasm',
    extract: extractEcmascript,
    moduleStyle: 'ecmascript',
  },
  {
    id: 'tsx',
    extensions: ['.tsx'],
    grammarPackage: 'tree-sitter-typescript',
    wasmFile: 'tree-sitter-tsx.wasm',
    extract: extractEcmascript,
    moduleStyle: 'ecmascript',
  },
  {
    id: 'javascript',
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    grammarPackage: 'tree-sitter-javascript',
    wasmFile: 'tree-sitter-javascript.wasm',
    extract: extractEcmascript,
    moduleStyle: 'ecmascript',
  },
  {
    id: 'python',
    extensions: ['.py', '.pyi'],
    grammarPackage: 'tree-sitter-python',
    wasmFile: 'tree-sitter-python.wasm',
    extract: extractPython,
    moduleStyle: 'python',
  },
];

const byExtension = new Map(
  LANGUAGES.flatMap((language) => language.extensions.map((ext) => [ext, language])),
);

export function languageOf(file: string): LanguageSpec | undefined {
  // `.d.ts` files declare what exists elsewhere; they are indexed as TypeScript like any other.
  return byExtension.get(path.extname(file).toLowerCase());
}

const require = createRequire(import.meta.url);

export function grammarPath(language: LanguageSpec): string {
  return path.join(
    path.dirname(require.resolve(`${language.grammarPackage}/package.json`)),
    language.wasmFile,
  );
}
