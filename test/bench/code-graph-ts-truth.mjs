// Ground truth for TypeScript callers: the TypeScript language service's own find-references
// over the corpus's tsconfig, kept to references that are the callee of a call or `new`
// expression. Also names, from the syntax and the checker, what kind of call each callsite is,
// so a study can tell which kinds a resolver misses.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CODE_GRAPH_PACKAGE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../servers/code-graph/package.json',
);

/** The `typescript` that code-graph's precise mode uses (~5.9), so both sides read code alike. */
export function loadTypeScript() {
  return createRequire(CODE_GRAPH_PACKAGE)('typescript');
}

function languageService(ts, root) {
  const configFile = path.join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  if (read.error)
    throw new Error(
      `cannot read ${configFile}: ${ts.flattenDiagnosticMessageText(read.error.messageText, ' ')}`,
    );
  const config = ts.parseJsonConfigFileContent(read.config, ts.sys, root);
  const snapshots = new Map();
  const host = {
    getScriptFileNames: () => config.fileNames,
    getScriptVersion: () => '1',
    getScriptSnapshot(file) {
      if (!snapshots.has(file)) {
        const text = ts.sys.readFile(file);
        snapshots.set(file, text === undefined ? undefined : ts.ScriptSnapshot.fromString(text));
      }
      return snapshots.get(file);
    },
    getCurrentDirectory: () => root,
    getCompilationSettings: () => config.options,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  return { service: ts.createLanguageService(host, ts.createDocumentRegistry()), config };
}

/** The identifier starting exactly at `position`, or undefined. */
function identifierAt(ts, sourceFile, position) {
  let node = sourceFile;
  for (;;) {
    let next;
    ts.forEachChild(node, (child) => {
      if (next === undefined && child.pos <= position && position < child.end) next = child;
    });
    if (!next) return undefined;
    if (ts.isIdentifier(next) || ts.isPrivateIdentifier(next))
      return next.getStart(sourceFile) === position ? next : undefined;
    node = next;
  }
}

/** The call or `new` expression whose callee `identifier` names, or undefined for any other use. */
function callOf(ts, identifier) {
  const parent = identifier.parent;
  const isCallee = (call, callee) =>
    (ts.isCallExpression(call) || ts.isNewExpression(call)) && call.expression === callee;
  if (isCallee(parent, identifier)) return parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === identifier && isCallee(parent.parent, parent))
    return parent.parent;
  return undefined;
}

const isBare = (specifier) => !specifier.startsWith('.') && !specifier.startsWith('/');

function importOf(ts, declaration) {
  let node = declaration;
  while (node && !ts.isImportDeclaration(node)) node = node.parent;
  return node && ts.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : undefined;
}

/**
 * What kind of call this is, read from its callee: a bare name bound by an import, a parameter,
 * a destructuring…; or a member call by its receiver: `this`, a typed or inferred local, a
 * callback parameter, a property chain, a call's result.
 */
function callKind(ts, checker, call) {
  const callee = call.expression;
  const declarationOf = (node) => {
    const symbol = checker.getSymbolAtLocation(node);
    return symbol?.declarations?.[0];
  };
  if (ts.isIdentifier(callee)) {
    const declaration = declarationOf(callee);
    if (!declaration) return 'unbound name';
    if (ts.isImportSpecifier(declaration) || ts.isImportClause(declaration)) {
      const specifier = importOf(ts, declaration);
      if (specifier && isBare(specifier)) return 'name imported from the package itself';
      let target = checker.getSymbolAtLocation(callee);
      let hops = 0;
      while (target && target.flags & ts.SymbolFlags.Alias) {
        target = checker.getImmediateAliasedSymbol(target);
        hops++;
      }
      return hops > 1 ? 'name imported through a re-export' : 'imported name';
    }
    if (ts.isBindingElement(declaration)) return 'destructured name';
    if (ts.isParameter(declaration)) return 'function passed as a parameter';
    if (ts.isVariableDeclaration(declaration)) {
      const value = declaration.initializer;
      return value && (ts.isArrowFunction(value) || ts.isFunctionExpression(value))
        ? 'same-file function'
        : 'local alias';
    }
    return 'same-file function';
  }
  if (!ts.isPropertyAccessExpression(callee)) return 'other callee';
  const receiver = callee.expression;
  if (receiver.kind === ts.SyntaxKind.ThisKeyword) return 'this.method()';
  if (receiver.kind === ts.SyntaxKind.SuperKeyword) return 'super.method()';
  if (ts.isPropertyAccessExpression(receiver))
    return receiver.expression.kind === ts.SyntaxKind.ThisKeyword
      ? 'this.field.method()'
      : 'property chain a.b.method()';
  if (ts.isCallExpression(receiver) || ts.isNewExpression(receiver)) return "a call's result f().method()";
  if (!ts.isIdentifier(receiver)) return 'other receiver expression';
  const declaration = declarationOf(receiver);
  if (!declaration) return 'unbound receiver';
  if (ts.isNamespaceImport(declaration)) {
    const specifier = importOf(ts, declaration);
    return specifier && isBare(specifier)
      ? 'namespace imported from the package itself'
      : 'namespace import ns.f()';
  }
  if (ts.isImportSpecifier(declaration) || ts.isImportClause(declaration)) {
    const specifier = importOf(ts, declaration);
    return specifier && isBare(specifier)
      ? 'namespace imported from the package itself'
      : 'imported object or namespace';
  }
  if (ts.isParameter(declaration))
    return declaration.type ? 'annotated parameter' : 'callback parameter (type from context)';
  if (ts.isVariableDeclaration(declaration)) {
    if (declaration.type) return 'annotated local';
    const value = declaration.initializer;
    if (value && ts.isNewExpression(value)) return 'local assigned new X()';
    if (value && (ts.isCallExpression(value) || ts.isAwaitExpression(value)))
      return 'local assigned a call (type inferred)';
    return 'local of inferred type';
  }
  if (ts.isBindingElement(declaration)) return 'destructured local';
  if (ts.isClassDeclaration(declaration)) return 'static call Class.method()';
  if (ts.isModuleDeclaration(declaration)) return 'namespace member ns.f()';
  return 'other receiver';
}

/**
 * Whether the checker binds this use to the declaration itself (through imports and re-exports):
 * find-references also lists uses of the symbols it is related to, such as a base method it
 * overrides, which a call through the base type reaches, but which the checker binds to the base.
 */
function bindsTo(ts, checker, identifier, declaration) {
  let symbol = checker.getSymbolAtLocation(identifier);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.declarations?.includes(declaration) ?? false;
}

/** Functions and methods a graph keeps as symbols: declared at module, namespace or class level. */
function candidatesOf(ts, sourceFile) {
  const found = [];
  const qualified = (node, name) => {
    const parts = [name];
    for (let up = node.parent; up; up = up.parent) {
      if ((ts.isClassDeclaration(up) || ts.isModuleDeclaration(up)) && up.name) parts.unshift(up.name.text);
    }
    return parts.join('.');
  };
  const visit = (node) => {
    if (ts.isFunctionDeclaration(node) && node.body && node.name) {
      found.push({ name: node.name, kind: 'function', qualifiedName: qualified(node, node.name.text) });
    } else if (ts.isClassDeclaration(node) && node.name) {
      for (const member of node.members) {
        if (ts.isMethodDeclaration(member) && member.body && ts.isIdentifier(member.name))
          found.push({
            name: member.name,
            kind: 'method',
            qualifiedName: qualified(member, member.name.text),
          });
      }
      return;
    } else if (ts.isVariableStatement(node)) {
      for (const declaration of node.declarationList.declarations) {
        const value = declaration.initializer;
        if (
          ts.isIdentifier(declaration.name) &&
          value &&
          (ts.isArrowFunction(value) || ts.isFunctionExpression(value))
        )
          found.push({
            name: declaration.name,
            kind: 'function',
            qualifiedName: qualified(declaration, declaration.name.text),
          });
      }
      return;
    }
    if (ts.isSourceFile(node) || ts.isModuleDeclaration(node) || ts.isModuleBlock(node))
      ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

/**
 * Every function and method of the corpus with the callsites the language service binds to it,
 * ranked by that count (ties by qualified name, then file); the first `count` are returned.
 */
export function typescriptTruth(corpus, { count, log }) {
  const ts = loadTypeScript();
  const started = performance.now();
  const { service, config } = languageService(ts, corpus.root);
  const program = service.getProgram();
  const checker = program.getTypeChecker();
  const programMs = performance.now() - started;
  const errors = ts.getPreEmitDiagnostics(program).filter((d) => d.category === ts.DiagnosticCategory.Error);
  const relative = (file) => path.relative(corpus.root, file).split(path.sep).join('/');
  const ours = program
    .getSourceFiles()
    .filter((file) => !path.relative(corpus.root, file.fileName).startsWith('..'));
  const ranked = [];
  const referencing = performance.now();
  for (const sourceFile of ours) {
    for (const candidate of candidatesOf(ts, sourceFile)) {
      const declaration = candidate.name.parent;
      const groups = service.findReferences(sourceFile.fileName, candidate.name.getStart(sourceFile)) ?? [];
      const callsites = [];
      const seen = new Set();
      for (const group of groups) {
        for (const reference of group.references) {
          const file = program.getSourceFile(reference.fileName);
          const identifier = file && identifierAt(ts, file, reference.textSpan.start);
          const call = identifier && callOf(ts, identifier);
          const where = `${reference.fileName}:${reference.textSpan.start}`;
          if (!call || seen.has(where) || !bindsTo(ts, checker, identifier, declaration)) continue;
          seen.add(where);
          callsites.push({
            file: relative(reference.fileName),
            line: file.getLineAndCharacterOfPosition(call.getStart(file)).line + 1,
            nameLine: file.getLineAndCharacterOfPosition(reference.textSpan.start).line + 1,
            kind: callKind(ts, checker, call),
          });
        }
      }
      if (callsites.length === 0) continue;
      ranked.push({
        name: candidate.name.text,
        qualifiedName: candidate.qualifiedName,
        kind: candidate.kind,
        file: relative(sourceFile.fileName),
        line: sourceFile.getLineAndCharacterOfPosition(candidate.name.getStart(sourceFile)).line + 1,
        callsites,
      });
    }
  }
  ranked.sort(
    (a, b) =>
      b.callsites.length - a.callsites.length ||
      a.qualifiedName.localeCompare(b.qualifiedName) ||
      a.file.localeCompare(b.file),
  );
  log?.(
    `correctness: TypeScript references of ${ranked.length} called functions and methods in ${Math.round(performance.now() - referencing)} ms`,
  );
  return {
    checker: `TypeScript ${ts.version} language service (findReferences)`,
    programMs,
    files: ours.length,
    configFiles: config.fileNames.length,
    errors: errors.length,
    errorFiles: countBy(errors.map((error) => (error.file ? relative(error.file.fileName) : 'the options'))),
    called: ranked.length,
    symbols: ranked.slice(0, count),
  };
}

function countBy(values) {
  const counts = new Map();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, times]) => ({ value, times })).sort((a, b) => b.times - a.times);
}
