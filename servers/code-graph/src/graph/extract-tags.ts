import { readFileSync } from 'node:fs';
import { type Language, type Node, Query, type QueryMatch } from 'web-tree-sitter';
import { cleanComment } from './doc-comments.js';
import type { CallShape, FileFacts, SymbolKind } from './facts.js';
import { type BuilderScope, FactsBuilder, fileScope } from './facts-builder.js';
import { type TagsSource, tagsQueryFile } from './language-spec.js';
import { endLineOf, lineOf, type SyntaxNode, type SyntaxTree } from './syntax.js';

/** What the conventional `@definition.*` tags mean in the graph; tags not listed (fields, parameters, variants) are not symbols. */
const DEFINITION_KINDS = new Map<string, Exclude<SymbolKind, 'file'>>([
  ['module', 'module'],
  ['namespace', 'module'],
  ['class', 'class'],
  ['object', 'class'],
  ['interface', 'interface'],
  ['struct', 'struct'],
  ['enum', 'enum'],
  ['type', 'type'],
  ['function', 'function'],
  ['method', 'method'],
  ['macro', 'function'],
  ['constant', 'constant'],
  ['variable', 'variable'],
]);
const CONTAINER_KINDS = new Set(['module', 'class', 'interface', 'struct', 'enum']);
const CLASS_KINDS = new Set(['class', 'interface', 'struct']);
const TYPE_REFERENCES = new Set(['class', 'type', 'interface', 'implementation', 'module']);
const CALLABLE_NAME = /^[A-Za-z_][\w'?!]*$/;
const PRIVATE_KEYWORDS = /^(defp|defmacrop|defguardp|private|protected)\b/;

interface Definition {
  node: Node;
  nameNode: Node;
  kind: Exclude<SymbolKind, 'file'>;
  doc: string;
}

/**
 * One reader for every grammar without an extractor of its own, driven by its tags query:
 * definitions nest by range (`Bank.Money.add`), calls are `@reference.call` with the caller the
 * innermost definition around them, and the other references are type uses. Tags queries carry
 * no imports or receiver types, so these languages resolve by name only (see resolve.ts).
 */
export class TagsReader {
  private readonly queries = new Map<Language, Query>();

  constructor(private readonly source: TagsSource) {}

  private queryFor(language: Language): Query {
    let query = this.queries.get(language);
    if (!query) {
      const text =
        'text' in this.source ? this.source.text : readFileSync(tagsQueryFile(this.source), 'utf8');
      query = new Query(language, text);
      this.queries.set(language, query);
    }
    return query;
  }

  extract(tree: SyntaxTree): FileFacts {
    const matches = this.queryFor(tree.language).matches(tree.rootNode);
    const ignored = new Set(matches.flatMap((match) => captured(match, 'ignore')).map((node) => node.id));
    const definitions = definitionsOf(matches);
    const builder = new FactsBuilder();
    const scopes = declareNested(definitions, builder);
    const definedNames = new Set(definitions.map((definition) => definition.nameNode.id));
    for (const match of matches) {
      const nameNode = captured(match, 'name')[0];
      for (const capture of match.captures) {
        if (!capture.name.startsWith('reference.') || !nameNode) continue;
        if (ignored.has(nameNode.id) || definedNames.has(nameNode.id)) continue;
        const scope = innermost(scopes, capture.node);
        const reference = capture.name.slice('reference.'.length);
        if (reference === 'call') {
          // Some queries tag operators as calls (`a + b` in OCaml's): only named functions are kept.
          if (CALLABLE_NAME.test(nameNode.text))
            builder.addCall(callShape(nameNode), lineOf(capture.node), scope);
        } else if (TYPE_REFERENCES.has(reference))
          builder.typeUse(nameNode.text, lineOf(nameNode), 'REFERENCES', scope);
      }
    }
    return builder.facts;
  }
}

function captured(match: QueryMatch, name: string): Node[] {
  return match.captures.filter((capture) => capture.name === name).map((capture) => capture.node);
}

/** One definition per node, in source order; of two patterns matching one node, the one with a doc comment wins. */
function definitionsOf(matches: QueryMatch[]): Definition[] {
  const byNode = new Map<number, Definition>();
  for (const match of matches) {
    const definition = match.captures.find((capture) => capture.name.startsWith('definition.'));
    const nameNode = captured(match, 'name')[0];
    const kind = definition && DEFINITION_KINDS.get(definition.name.slice('definition.'.length));
    if (!definition || !nameNode || !kind) continue;
    const doc = captured(match, 'doc')
      .map((node) => cleanTagComment(node.text))
      .join('\n');
    const known = byNode.get(definition.node.id);
    if (!known || (!known.doc && doc))
      byNode.set(definition.node.id, { node: definition.node, nameNode, kind, doc });
  }
  return [...byNode.values()].sort(
    (a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex,
  );
}

interface DeclaredScope {
  node: Node;
  scope: BuilderScope;
}

/**
 * Declares the definitions under the ones whose range holds them. Definitions inside a function
 * are its locals, not symbols; consecutive clauses of one function (`f 0 = 1`, `f n = …`) are one.
 */
function declareNested(definitions: Definition[], builder: FactsBuilder): Map<number, BuilderScope> {
  const declared = new Map<number, BuilderScope>();
  const open: DeclaredScope[] = [];
  let previous: { index: number; definition: Definition } | undefined;
  for (const definition of definitions) {
    while (open.length > 0 && !contains(open.at(-1)?.node, definition.node)) open.pop();
    const enclosing = open.at(-1)?.scope ?? fileScope();
    if (enclosing.inFunction) continue;
    const [name, ...outer] = definition.nameNode.text.split('.').reverse();
    const prefix = [enclosing.prefix, ...outer.reverse()].filter(Boolean).join('.');
    const ownerKind =
      enclosing.owner !== undefined ? builder.facts.symbols[enclosing.owner]?.kind : undefined;
    const kind =
      definition.kind === 'function' && ownerKind && CLASS_KINDS.has(ownerKind) ? 'method' : definition.kind;
    const qualifiedName = prefix ? `${prefix}.${name}` : (name ?? '');
    const last = previous && builder.facts.symbols[previous.index];
    let index: number | undefined;
    if (
      last &&
      last.qualifiedName === qualifiedName &&
      last.kind === kind &&
      last.parent === enclosing.owner
    ) {
      last.endLine = endLineOf(definition.node);
      index = previous?.index;
    } else {
      index = builder.declare(
        {
          name: name ?? '',
          kind,
          node: definition.node,
          body: null,
          exported: !isPrivate(definition.node),
          signature: signatureLine(definition.node),
          doc: definition.doc || docAbove(definition.node),
        },
        { ...enclosing, prefix },
      );
    }
    if (index === undefined) continue;
    previous = { index, definition };
    const scope: BuilderScope = CONTAINER_KINDS.has(kind)
      ? builder.inside(index, enclosing, CLASS_KINDS.has(kind))
      : { ...enclosing, owner: index, inFunction: kind === 'function' || kind === 'method' };
    open.push({ node: definition.node, scope });
    declared.set(definition.node.id, scope);
  }
  return declared;
}

function contains(outer: Node | undefined, inner: Node): boolean {
  return outer !== undefined && outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;
}

/** The scope of the innermost definition around `node`, found by walking up its ancestors. */
function innermost(scopes: Map<number, BuilderScope>, node: Node): BuilderScope {
  for (let current: Node | null = node; current; current = current.parent) {
    const scope = scopes.get(current.id);
    if (scope) return scope;
  }
  return fileScope();
}

/** `Bank.Money.add(m)`: a call through a capitalised dotted name is a call on that module or class. */
function callShape(nameNode: Node): CallShape {
  const qualifier = nameNode.previousNamedSibling;
  const dotted =
    qualifier && nameNode.parent?.text.startsWith(qualifier.text) ? qualifier.text.replace(/\.$/, '') : '';
  return /^[A-Z][\w]*(\.[A-Z][\w]*)*$/.test(dotted)
    ? { callee: nameNode.text, receiver: { kind: 'name', name: dotted } }
    : { callee: nameNode.text };
}

function isPrivate(node: SyntaxNode): boolean {
  if (PRIVATE_KEYWORDS.test(node.text)) return true;
  return node.namedChildren.some((child) => /modifier/.test(child.type) && /\bprivate\b/.test(child.text));
}

/** The definition's first line, without what opens its body (`, do:`, ` do`, ` = …`, ` where`, a trailing `{`). */
function signatureLine(node: SyntaxNode): string {
  const first = (node.text.split('\n')[0] ?? '').trim();
  const cut = first.replace(/(,\s*do:.*|\s+do\b.*|\s+=\s.*|\s+where\b.*|\s*\{\s*)$/, '').trim() || first;
  return cut.length > 240 ? `${cut.slice(0, 239)}…` : cut;
}

/**
 * The documentation right above a definition: a run of comments (any grammar's comment node
 * types), a string literal (Julia docstrings) or an `@doc` attribute (Elixir).
 */
function docAbove(node: SyntaxNode): string {
  const lines: string[] = [];
  let expectedEndRow = node.startPosition.row - 1;
  for (let sibling = node.previousNamedSibling; sibling; sibling = sibling.previousNamedSibling) {
    if (sibling.endPosition.row < expectedEndRow) break;
    if (/comment|haddock/.test(sibling.type)) {
      lines.unshift(cleanTagComment(sibling.text));
      expectedEndRow = sibling.startPosition.row - 1;
      continue;
    }
    if (lines.length === 0 && (/string/.test(sibling.type) || /^@doc\b/.test(sibling.text))) {
      return sibling.text
        .replace(/^@doc\s*/, '')
        .replace(/^("""|")|("""|")$/g, '')
        .trim()
        .slice(0, 1000);
    }
    break;
  }
  return lines.join('\n').slice(0, 1000);
}

/** Strips the comment markers of the grammars read here: `#`, `--` and Haddock's `-- |`, OCaml's `(*`, C-style ones. */
function cleanTagComment(text: string): string {
  return cleanComment(
    text
      .replace(/^\(\*+\s?|\s?\*+\)$/g, '')
      .split('\n')
      .map((line) => line.replace(/^\s*--\s?\|?\s?/, ''))
      .join('\n'),
  );
}
