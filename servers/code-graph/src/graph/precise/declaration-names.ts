import ts from 'typescript';

/**
 * Names declarations as extract-ecmascript.ts names symbols, so the checker's answers can be
 * matched to stored symbols: top-level and namespace declarations, and the members of classes
 * and interfaces, qualified by their enclosing classes, interfaces and namespaces. Anything the
 * extractor does not keep (locals, object-literal members, interface properties) has no name.
 */

/** `Money.multiplyByRate` for a declaration the store may hold as a symbol; undefined otherwise. */
export function storedNameOf(declaration: ts.Node): string | undefined {
  const own = ownName(declaration);
  if (own === undefined) return undefined;
  const container = containerOf(declaration);
  if (container === undefined) return undefined;
  if (ts.isSourceFile(container)) return own;
  const outer = storedNameOf(container);
  return outer === undefined ? undefined : `${outer}.${own}`;
}

function ownName(node: ts.Node): string | undefined {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (
    ts.isFunctionDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isClassExpression(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isModuleDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isMethodSignature(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isPropertyDeclaration(node) ||
    (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name))
  ) {
    const name = node.name;
    if (!name) return undefined;
    if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)) return name.text;
    if (ts.isNumericLiteral(name)) return name.text;
  }
  return undefined;
}

/**
 * Where a declaration sits, when the extractor would keep it: the source file, or the class,
 * interface or namespace it is a member of. Undefined inside functions, blocks and literals.
 */
function containerOf(node: ts.Node): ts.Node | undefined {
  const parent = node.parent;
  if (!parent) return undefined;
  if (ts.isVariableDeclaration(node)) {
    const statement = parent.parent;
    return statement && ts.isVariableStatement(statement) ? moduleLevel(statement.parent) : undefined;
  }
  if (
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isPropertyDeclaration(node)
  ) {
    return ts.isClassLike(parent) ? parent : undefined;
  }
  if (ts.isMethodSignature(node)) return ts.isInterfaceDeclaration(parent) ? parent : undefined;
  // `namespace A.B {}` is one symbol, `A.B`, in the extractor: the inner part is named through the outer.
  if (ts.isModuleDeclaration(node) && ts.isModuleDeclaration(parent)) return parent;
  return moduleLevel(parent);
}

function moduleLevel(node: ts.Node | undefined): ts.Node | undefined {
  if (!node) return undefined;
  if (ts.isSourceFile(node)) return node;
  if (ts.isModuleBlock(node)) return node.parent;
  return undefined;
}

/** Inside a function, a block or a catch clause: a value the store never holds as a symbol. */
export function isLocal(declaration: ts.Node): boolean {
  if (ts.isParameter(declaration) || ts.isTypeParameterDeclaration(declaration)) return true;
  for (let node = declaration.parent; node && !ts.isSourceFile(node); node = node.parent) {
    if (
      ts.isFunctionLike(node) ||
      ts.isBlock(node) ||
      ts.isCatchClause(node) ||
      ts.isForStatement(node) ||
      ts.isForOfStatement(node) ||
      ts.isForInStatement(node) ||
      ts.isClassStaticBlockDeclaration(node)
    ) {
      return true;
    }
  }
  return false;
}
