// Ground truth for Python callers: pyright's own find-references (textDocument/references from
// pyright-langserver over stdio), kept to references that are the function of a call. Which
// references are calls, and what kind of call each is, is read from tree-sitter-python's tree of
// the calling file (a syntactic reading: pyright's LSP gives locations, not syntax).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startLanguageServer } from './code-graph-lsp.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const inTest = createRequire(path.join(HERE, '../package.json'));
const inCodeGraph = createRequire(path.join(HERE, '../../servers/code-graph/package.json'));

const SYMBOL_KIND = { class: 5, method: 6, function: 12 };

async function pythonParser() {
  const { Parser, Language } = await import(pathToFileURL(inCodeGraph.resolve('web-tree-sitter')).href);
  await Parser.init();
  const grammar = path.join(
    path.dirname(inCodeGraph.resolve('tree-sitter-python/package.json')),
    'tree-sitter-python.wasm',
  );
  const parser = new Parser();
  parser.setLanguage(await Language.load(grammar));
  return parser;
}

/**
 * The syntax node at an LSP position of a file. LSP counts UTF-16 units in a line and tree-sitter
 * bytes, so the column is converted. Trees are kept for the whole study (a few dozen files).
 */
function nodeFinder(parser) {
  const parsed = new Map();
  return (file, { line, character }) => {
    if (!parsed.has(file)) {
      const source = readFileSync(file, 'utf8');
      parsed.set(file, { tree: parser.parse(source), lines: source.split('\n') });
    }
    const { tree, lines } = parsed.get(file);
    const column = Buffer.byteLength((lines[line] ?? '').slice(0, character));
    return tree.rootNode.descendantForPosition({ row: line, column });
  };
}

/** The call whose function `identifier` names (`f(…)` or `x.f(…)`), or undefined. */
function callOf(identifier) {
  let callee = identifier;
  const parent = identifier.parent;
  if (parent?.type === 'attribute' && parent.childForFieldName('attribute')?.equals(identifier))
    callee = parent;
  const call = callee.parent;
  return call?.type === 'call' && call.childForFieldName('function')?.equals(callee) ? call : undefined;
}

function enclosingFunctions(node) {
  const found = [];
  for (let up = node.parent; up; up = up.parent) if (up.type === 'function_definition') found.push(up);
  return found;
}

/** Where a name used at `node` is bound, by a syntactic scope walk: function scopes, then the module. */
function bindingOf(name, node) {
  for (const scope of enclosingFunctions(node)) {
    for (const parameter of scope.childForFieldName('parameters')?.namedChildren ?? []) {
      const named =
        parameter.type === 'identifier'
          ? parameter
          : parameter.namedChildren.find((c) => c.type === 'identifier');
      if (named?.text === name) return { kind: 'parameter', annotated: parameter.type.includes('typed') };
    }
    const assigned = assignmentIn(scope.childForFieldName('body'), name);
    if (assigned) return assigned;
  }
  let root = node;
  while (root.parent) root = root.parent;
  for (const statement of root.namedChildren) {
    if (statement.type === 'import_statement' || statement.type === 'import_from_statement') {
      for (const imported of statement.namedChildren.slice(
        statement.type === 'import_from_statement' ? 1 : 0,
      )) {
        const local = imported.type === 'aliased_import' ? imported.childForFieldName('alias') : imported;
        const first = local?.text.split('.')[0];
        if (first === name)
          return { kind: statement.type === 'import_statement' ? 'module' : 'imported', from: statement };
      }
    }
    if (
      (statement.type === 'function_definition' || statement.type === 'class_definition') &&
      statement.childForFieldName('name')?.text === name
    )
      return { kind: statement.type === 'class_definition' ? 'class' : 'function' };
  }
  return assignmentIn(root, name) ?? { kind: 'unknown' };
}

/** The first `name = value` directly in a block (not in nested functions). */
function assignmentIn(block, name) {
  if (!block) return undefined;
  const stack = [...block.namedChildren];
  while (stack.length > 0) {
    const node = stack.shift();
    if (node.type === 'function_definition' || node.type === 'class_definition') continue;
    if (node.type === 'assignment' && node.childForFieldName('left')?.text === name) {
      const value = node.childForFieldName('right');
      const annotated = node.childForFieldName('type') !== null;
      if (annotated) return { kind: 'local', shape: 'annotated' };
      if (value?.type === 'call') {
        const made = value.childForFieldName('function')?.text ?? '';
        return { kind: 'local', shape: /^[A-Z]/.test(made.split('.').pop()) ? 'constructed' : 'call' };
      }
      return { kind: 'local', shape: 'other' };
    }
    if (node.type === 'import_from_statement' || node.type === 'import_statement') {
      if (node.text.match(new RegExp(`\\b${name}\\b`)))
        return { kind: node.type === 'import_statement' ? 'module' : 'imported' };
    }
    stack.push(...node.namedChildren);
  }
  return undefined;
}

function leftmost(node) {
  let current = node;
  while (current.type === 'attribute') current = current.childForFieldName('object');
  return current;
}

/** What kind of call this is, by its callee: a bare name and how it is bound, or a member call by its receiver. */
function callKind(call) {
  const callee = call.childForFieldName('function');
  if (callee.type === 'identifier') {
    const binding = bindingOf(callee.text, call);
    if (binding.kind === 'imported') return 'name imported with from … import';
    if (binding.kind === 'function') return 'same-file function';
    if (binding.kind === 'parameter') return 'function passed as a parameter';
    if (binding.kind === 'local') return 'local alias';
    return 'other bare name';
  }
  if (callee.type !== 'attribute') return 'other callee';
  const receiver = callee.childForFieldName('object');
  if (receiver.type === 'identifier' && receiver.text === 'self') return 'self.method()';
  if (receiver.type === 'identifier' && receiver.text === 'cls') return 'cls.method()';
  if (receiver.type === 'call') {
    return receiver.childForFieldName('function')?.text === 'super'
      ? 'super().method()'
      : "a call's result f().method()";
  }
  const base = leftmost(receiver);
  if (base.type !== 'identifier') return 'other receiver expression';
  const binding = bindingOf(base.text, call);
  if (binding.kind === 'module' || binding.kind === 'imported') return 'module attribute mod.f()';
  if (receiver.type === 'attribute')
    return base.text === 'self' ? 'self.field.method()' : 'attribute chain a.b.method()';
  if (binding.kind === 'class') return 'static call Class.method()';
  if (binding.kind === 'parameter')
    return binding.annotated ? 'annotated parameter' : 'unannotated parameter';
  if (binding.kind === 'local') {
    if (binding.shape === 'annotated') return 'annotated local';
    if (binding.shape === 'constructed') return 'local assigned Class()';
    if (binding.shape === 'call') return 'local assigned a call (type inferred)';
    return 'local of inferred type';
  }
  return 'other receiver';
}

/** Functions and methods at module or class level, from pyright's document symbols. */
function candidatesOf(symbols, relative) {
  const found = [];
  for (const symbol of symbols) {
    if (symbol.kind === SYMBOL_KIND.function || symbol.kind === SYMBOL_KIND.method) {
      found.push({
        name: symbol.name,
        qualifiedName: symbol.name,
        kind: 'function',
        file: relative,
        at: symbol.selectionRange.start,
      });
    }
    if (symbol.kind === SYMBOL_KIND.class) {
      for (const member of symbol.children ?? []) {
        if (member.kind === SYMBOL_KIND.method || member.kind === SYMBOL_KIND.function)
          found.push({
            name: member.name,
            qualifiedName: `${symbol.name}.${member.name}`,
            kind: 'method',
            file: relative,
            at: member.selectionRange.start,
          });
      }
    }
  }
  return found;
}

/**
 * Every function and method of the corpus with the callsites pyright's find-references gives
 * it, ranked by that count (ties by qualified name, then file); the first `count` are returned.
 */
export async function pythonTruth(corpus, { count, log }) {
  const parser = await pythonParser();
  const nodeAt = nodeFinder(parser);
  const pyrightPackage = path.dirname(inTest.resolve('pyright/package.json'));
  const version = JSON.parse(readFileSync(path.join(pyrightPackage, 'package.json'), 'utf8')).version;
  const server = startLanguageServer(
    process.execPath,
    [path.join(pyrightPackage, 'langserver.index.js'), '--stdio'],
    {
      cwd: corpus.root,
      settings: { python: {}, 'python.analysis': { diagnosticMode: 'openFilesOnly' } },
    },
  );
  const uri = (file) => pathToFileURL(file).href;
  const relative = (file) => path.relative(corpus.root, file).split(path.sep).join('/');
  try {
    const started = performance.now();
    await server.request('initialize', {
      processId: process.pid,
      rootUri: uri(corpus.root),
      workspaceFolders: [{ uri: uri(corpus.root), name: 'corpus' }],
      capabilities: {
        textDocument: { references: {}, documentSymbol: { hierarchicalDocumentSymbolSupport: true } },
        workspace: { configuration: true, workspaceFolders: true },
      },
    });
    server.notify('initialized', {});
    for (const file of corpus.files) {
      server.notify('textDocument/didOpen', {
        textDocument: { uri: uri(file), languageId: 'python', version: 1, text: readFileSync(file, 'utf8') },
      });
    }
    const candidates = [];
    for (const file of corpus.files) {
      const symbols = await server.request('textDocument/documentSymbol', {
        textDocument: { uri: uri(file) },
      });
      candidates.push(...candidatesOf(symbols ?? [], relative(file)));
    }
    const ranked = [];
    for (const candidate of candidates) {
      const locations =
        (await server.request('textDocument/references', {
          textDocument: { uri: uri(path.join(corpus.root, candidate.file)) },
          position: candidate.at,
          context: { includeDeclaration: false },
        })) ?? [];
      const callsites = [];
      for (const location of locations) {
        const file = fileURLToPath(location.uri);
        if (path.relative(corpus.root, file).startsWith('..')) continue;
        const { start } = location.range;
        const node = nodeAt(file, start);
        const call = node?.type === 'identifier' ? callOf(node) : undefined;
        if (!call) continue;
        callsites.push({
          file: relative(file),
          line: call.startPosition.row + 1,
          nameLine: start.line + 1,
          kind: callKind(call),
        });
      }
      if (callsites.length > 0)
        ranked.push({ ...candidate, line: candidate.at.line + 1, at: undefined, callsites });
    }
    ranked.sort(
      (a, b) =>
        b.callsites.length - a.callsites.length ||
        a.qualifiedName.localeCompare(b.qualifiedName) ||
        a.file.localeCompare(b.file),
    );
    log?.(
      `correctness: pyright references of ${candidates.length} functions and methods in ${Math.round(performance.now() - started)} ms`,
    );
    return {
      checker: `pyright ${version} (pyright-langserver, textDocument/references)`,
      files: corpus.files.length,
      candidates: candidates.length,
      called: ranked.length,
      symbols: ranked.slice(0, count),
    };
  } finally {
    await server.close();
  }
}
