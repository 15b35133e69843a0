// Loaded with the first parse, as web-tree-sitter is: zlib too, which an idle server never needs.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { Language, type Node, Parser, type Tree } from 'web-tree-sitter';
import { grammarPath, type LanguageSpec } from './language-spec.js';

export type SyntaxNode = Node;

/** How deep the extractors walk a tree: generated code can nest far deeper than the call stack allows. */
export const MAX_NESTING = 1000;

/** How many links of a call chain (`a().b().c()`) a receiver describes. */
export const MAX_CHAIN = 32;
export type SyntaxTree = Tree;

/** The language's wasm, as web-tree-sitter loads it. */
function readGrammar(language: LanguageSpec): Uint8Array {
  const file = grammarPath(language);
  const bytes = readFileSync(file);
  return file.endsWith('.gz') ? gunzipSync(bytes) : bytes;
}

let initialised: Promise<void> | undefined;
const grammars = new Map<string, Promise<Language>>();

/** Loads web-tree-sitter once, and each grammar the first time a file needs it. */
async function grammar(language: LanguageSpec): Promise<Language> {
  initialised ??= Parser.init();
  await initialised;
  let loaded = grammars.get(language.id);
  if (!loaded) {
    loaded = Language.load(readGrammar(language));
    grammars.set(language.id, loaded);
  }
  return loaded;
}

/** One parser per language, reused: a parser holds WASM memory, so it is not made per file. */
const parsers = new Map<string, Parser>();

export async function parserFor(language: LanguageSpec): Promise<Parser> {
  let parser = parsers.get(language.id);
  if (!parser) {
    const loaded = await grammar(language);
    parser = parsers.get(language.id) ?? new Parser();
    parser.setLanguage(loaded);
    parsers.set(language.id, parser);
  }
  return parser;
}

/**
 * Parses `source` and hands the tree to `read`, deleting the tree afterwards: trees live on the
 * WASM heap, which no garbage collector frees. Trees with ERROR nodes are read all the same —
 * tree-sitter-typescript 0.23.2 leaves them on variance annotations (`<in T>`) in valid code.
 */
export function withTree<T>(parser: Parser, source: string, read: (tree: Tree) => T): T {
  const tree = parser.parse(source);
  if (!tree) throw new Error('the parser returned no tree');
  try {
    return read(tree);
  } finally {
    tree.delete();
  }
}

/** The declaration text before its body, on one line: what a signature shows. */
export function signatureOf(node: Node, body: Node | null, limit = 240): string {
  const end = body ? body.startIndex - node.startIndex : node.text.length;
  const text = node.text
    .slice(0, end)
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[{:;]\s*$/, '')
    .trim();
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

export function lineOf(node: Node): number {
  return node.startPosition.row + 1;
}

export function endLineOf(node: Node): number {
  return node.endPosition.row + 1;
}
