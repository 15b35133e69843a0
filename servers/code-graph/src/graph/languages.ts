import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  type Extract,
  grammarPath,
  type LanguageSpec,
  type NameRules,
  type TagsSource,
  tagsQueryInstalled,
} from './language-spec.js';
import { HASKELL_TAGS } from './queries/haskell-tags.js';
import { JULIA_TAGS } from './queries/julia-tags.js';

const C_NAMES: NameRules = { inclusive: true, nested: true, implicitSelf: true };
const SCRIPT_NAMES: NameRules = { inclusive: true, nested: true, global: true };
const TAGS_NAMES: NameRules = { nested: true, implicitSelf: true, global: true };

// Extractors shared by languages, imported when first used like every other (LanguageSpec.extractor).
const ecmascript = () => import('./extract-ecmascript.js').then((module) => module.extractEcmascript);
const cFamily = () => import('./extract-c.js').then((module) => module.extractCFamily);

export const LANGUAGES: readonly LanguageSpec[] = [
  {
    id: 'typescript',
    extensions: ['.ts', '.mts', '.cts'],
    grammarPackage: 'tree-sitter-typescript',
    wasmFile: 'tree-sitter-typescript.wasm',
    extractor: ecmascript,
    moduleStyle: 'ecmascript',
  },
  {
    id: 'tsx',
    extensions: ['.tsx'],
    grammarPackage: 'tree-sitter-typescript',
    wasmFile: 'tree-sitter-tsx.wasm',
    extractor: ecmascript,
    moduleStyle: 'ecmascript',
  },
  {
    id: 'javascript',
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    grammarPackage: 'tree-sitter-javascript',
    wasmFile: 'tree-sitter-javascript.wasm',
    extractor: ecmascript,
    moduleStyle: 'ecmascript',
  },
  {
    id: 'python',
    extensions: ['.py', '.pyi'],
    grammarPackage: 'tree-sitter-python',
    wasmFile: 'tree-sitter-python.wasm',
    extractor: () => import('./extract-python.js').then((module) => module.extractPython),
    moduleStyle: 'python',
  },
  {
    id: 'c',
    extensions: ['.c'],
    grammarPackage: 'tree-sitter-c',
    wasmFile: 'tree-sitter-c.wasm',
    extractor: cFamily,
    moduleStyle: 'c',
    names: C_NAMES,
  },
  {
    // `.h` is read as C++: the C++ grammar reads C declarations as well, while the C grammar
    // cannot read a class, so a header of either language keeps its symbols. Such headers are
    // counted under cpp in index_status, even in a C-only tree.
    id: 'cpp',
    extensions: ['.cc', '.cpp', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.h++', '.h'],
    grammarPackage: 'tree-sitter-cpp',
    wasmFile: 'tree-sitter-cpp.wasm',
    extractor: cFamily,
    moduleStyle: 'c',
    names: C_NAMES,
  },
  {
    id: 'ruby',
    extensions: ['.rb', '.rake', '.gemspec'],
    grammarPackage: 'tree-sitter-ruby',
    wasmFile: 'tree-sitter-ruby.wasm',
    extractor: () => import('./extract-ruby.js').then((module) => module.extractRuby),
    moduleStyle: 'ruby',
    names: { ...SCRIPT_NAMES, implicitSelf: true },
  },
  {
    id: 'php',
    extensions: ['.php'],
    grammarPackage: 'tree-sitter-php',
    wasmFile: 'tree-sitter-php.wasm',
    extractor: () => import('./extract-php.js').then((module) => module.extractPhp),
    moduleStyle: 'php',
    names: SCRIPT_NAMES,
  },
  {
    id: 'bash',
    extensions: ['.sh', '.bash'],
    grammarPackage: 'tree-sitter-bash',
    wasmFile: 'tree-sitter-bash.wasm',
    extractor: () => import('./extract-bash.js').then((module) => module.extractBash),
    moduleStyle: 'bash',
    names: { inclusive: true, commands: true },
  },
  optionalLanguage('elixir', ['.ex', '.exs'], 'tree-sitter-elixir', {
    package: 'tree-sitter-elixir',
    file: 'queries/tags.scm',
  }),
  // tree-sitter-haskell and tree-sitter-julia ship no tags query: ours are in queries/.
  optionalLanguage('haskell', ['.hs'], 'tree-sitter-haskell', { text: HASKELL_TAGS }),
  optionalLanguage('julia', ['.jl'], 'tree-sitter-julia', { text: JULIA_TAGS }),
  optionalLanguage('ocaml', ['.ml'], 'tree-sitter-ocaml', {
    package: 'tree-sitter-ocaml',
    file: 'queries/tags.scm',
  }),
  optionalLanguage('scala', ['.scala', '.sc'], 'tree-sitter-scala', {
    package: 'tree-sitter-scala',
    file: 'queries/tags.scm',
  }),
  {
    id: 'go',
    extensions: ['.go'],
    // go.mod maps import paths to folders (its module path); see extractGo.
    fileNames: ['go.mod'],
    grammarPackage: 'tree-sitter-go',
    wasmFile: 'tree-sitter-go.wasm',
    extractor: () => import('./extract-go.js').then((module) => module.extractGo),
    moduleStyle: 'go',
  },
  {
    id: 'rust',
    extensions: ['.rs'],
    grammarPackage: 'tree-sitter-rust',
    wasmFile: 'tree-sitter-rust.wasm',
    extractor: () => import('./extract-rust.js').then((module) => module.extractRust),
    moduleStyle: 'rust',
  },
  {
    id: 'java',
    extensions: ['.java'],
    grammarPackage: 'tree-sitter-java',
    wasmFile: 'tree-sitter-java.wasm',
    extractor: () => import('./extract-java.js').then((module) => module.extractJava),
    moduleStyle: 'java',
  },
  {
    id: 'csharp',
    extensions: ['.cs'],
    grammarPackage: 'tree-sitter-c-sharp',
    wasmFile: 'tree-sitter-c_sharp.wasm',
    extractor: () => import('./extract-csharp.js').then((module) => module.extractCsharp),
    moduleStyle: 'csharp',
  },
];

/** A language read by the tags-driven extractor, through the tags query its grammar ships or one of ours. */
export function optionalLanguage(
  id: string,
  extensions: string[],
  grammarPackage: string,
  tags: TagsSource,
): LanguageSpec {
  let extract: Promise<Extract> | undefined;
  const spec: LanguageSpec = {
    id,
    extensions,
    grammarPackage,
    wasmFile: `${grammarPackage}.wasm`,
    ...('file' in tags && { grammarQueries: [tags.file] }),
    extractor: () => {
      extract ??= import('./extract-tags.js').then(({ TagsReader }) => {
        const reader = new TagsReader(tags);
        return (tree) => reader.extract(tree);
      });
      return extract;
    },
    moduleStyle: 'none',
    names: TAGS_NAMES,
    installed: () => tagsQueryInstalled(tags) && grammarInstalled(spec),
  };
  return spec;
}

function grammarInstalled(language: LanguageSpec): boolean {
  try {
    return existsSync(grammarPath(language));
  } catch {
    return false;
  }
}

type LanguageSupport = { language: string; extensions: readonly string[]; installed: boolean }[];
let support: LanguageSupport | undefined;

/**
 * Every language the engine knows, and whether it can read it here: a grammar file may be missing
 * installed. Looked at once, as the table the files are read with is (byExtension): a grammar
 * installed later is read after a restart, and index_status, asked often while a root indexes,
 * no longer searches node_modules for the missing packages on every call.
 */
export function languageSupport(): LanguageSupport {
  support ??= LANGUAGES.map((language) => ({
    language: language.id,
    extensions: language.extensions,
    installed: language.installed?.() ?? true,
  }));
  return support;
}

/** Which language reads each extension. A language whose grammar is missing claims no files, so they are skipped like any unknown file. */
export function languagesByExtension(languages: readonly LanguageSpec[]): Map<string, LanguageSpec> {
  return new Map(
    languages
      .filter((language) => language.installed?.() ?? true)
      .flatMap((language) => language.extensions.map((ext) => [ext, language] as const)),
  );
}

const byExtension = languagesByExtension(LANGUAGES);

const byFileName = new Map(
  LANGUAGES.flatMap((language) => (language.fileNames ?? []).map((name) => [name, language] as const)),
);

export function languageOf(file: string): LanguageSpec | undefined {
  // `.d.ts` files declare what exists elsewhere; they are indexed as TypeScript like any other.
  return byFileName.get(path.posix.basename(file)) ?? byExtension.get(path.extname(file).toLowerCase());
}
