import ts from 'typescript';
import type { CallOutcome } from './checker-protocol.js';
import type { DeclarationVerdicts } from './declaration-verdicts.js';

export type CallNode = ts.CallExpression | ts.NewExpression | ts.TaggedTemplateExpression;

export interface CallTarget {
  name: string;
  text: string;
  outcome: CallOutcome;
}

/** Links of a call chain read from declared return types before the checker is asked instead. */
const MAX_DECLARED_CHAIN = 12;

/** Longest callee text kept for an edge the syntactic pass did not have. */
const MAX_TEXT = 80;

/**
 * What a call reaches, by the checker: the callee's symbol through import aliases; for a callee
 * without one, or one that only holds a value the store has no symbol for (a parameter, a local
 * `const f = other`, a destructured name), the declaration of the signature the call resolves
 * to, when that is a named function or method and not the function type of some alias.
 */
export class CallTargets {
  /** Per file, the names a type guard may narrow (see narrowedIn). */
  private readonly narrowed = new WeakMap<ts.SourceFile, Set<ts.Symbol>>();

  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly verdicts: DeclarationVerdicts,
    private readonly storedNames: ReadonlySet<string>,
  ) {}

  /** Undefined for calls the graph does not record (`super(…)`, `import(…)`). */
  of(call: CallNode): CallTarget | undefined {
    const callee = ts.isTaggedTemplateExpression(call) ? call.tag : call.expression;
    if (callee.kind === ts.SyntaxKind.SuperKeyword || callee.kind === ts.SyntaxKind.ImportKeyword)
      return undefined;
    const inner = skipWrappers(callee);
    const outside = this.outsideChain(inner);
    if (outside) return outside;
    const nameNode = calleeName(inner);
    const symbol = nameNode ? (this.declaredMember(inner) ?? this.symbolAt(nameNode)) : undefined;
    const declarations = valueDeclarations(symbol?.declarations ?? []);
    const outcome = this.verdicts.outcome(declarations);
    // The callee's own symbol is the answer (what find-references would list it under) unless it
    // is a value local to a function, or there is none: then the signature's declaration says
    // which function runs (`const { total } = order; total()`, `formatterFor()(money)`).
    if (outcome.kind === 'symbols' || outcome.kind === 'external' || !declarations.every(holdsValue)) {
      return nameNode ? { name: nameText(nameNode), text: calleeText(inner), outcome } : undefined;
    }
    const signature = this.namedSignatureDeclaration(call);
    const signed = signature ? this.verdicts.outcome([signature]) : undefined;
    const found =
      signed?.kind === 'symbols' || (signed?.kind === 'external' && declarations.length === 0)
        ? signed
        : outcome;
    const name = nameNode ? nameText(nameNode) : signature && declaredName(signature);
    return name ? { name, text: calleeText(inner), outcome: found } : undefined;
  }

  /**
   * `expect(total).toEqual(5)`, `z.string().min(1)` with `z` from a package: a member of what a
   * chain starting outside the root returns, named like nothing the store holds. Its receiver's
   * type would take inference over every argument of the chain (most of a test file's checking
   * time), and the answer can only be outside the root. Anything named like a stored symbol is
   * asked as usual, since an outside function may return the root's own types.
   */
  private outsideChain(callee: ts.Expression): CallTarget | undefined {
    if (!ts.isPropertyAccessExpression(callee) || this.storedNames.has(callee.name.text)) return undefined;
    let receiver = skipWrappers(callee.expression);
    if (!ts.isCallExpression(receiver)) return undefined;
    while (ts.isCallExpression(receiver) || ts.isPropertyAccessExpression(receiver)) {
      receiver = skipWrappers(receiver.expression);
    }
    if (!ts.isIdentifier(receiver)) return undefined;
    const declarations = this.symbolAt(receiver)?.declarations ?? [];
    if (declarations.length === 0 || this.verdicts.outcome(declarations).kind !== 'external')
      return undefined;
    return { name: callee.name.text, text: calleeText(callee), outcome: { kind: 'external' } };
  }

  /**
   * `schema.parse(x)` after `const schema = z.object({…})`, or `z.string().min(1)`: the member of
   * what a call returns, found from the callee's declared return type when that is a class,
   * interface or object type (or `this`) and the callee has one signature. Every instantiation
   * of such a type has the same members, so the call's type arguments need not be inferred from
   * its arguments, which is most of the checker's time on code like zod's tests. Undefined
   * wherever the declarations do not settle it: the checker's own reading is asked then.
   */
  private declaredMember(callee: ts.Expression): ts.Symbol | undefined {
    if (!ts.isPropertyAccessExpression(callee)) return undefined;
    const receiver = this.returnedType(callee.expression, 0);
    return receiver && this.checker.getPropertyOfType(receiver, callee.name.text);
  }

  /** The declared type of a call's result, or of a `const` holding one (see declaredMember). */
  private returnedType(expression: ts.Expression, depth: number): ts.Type | undefined {
    if (depth > MAX_DECLARED_CHAIN) return undefined;
    const inner = withoutParentheses(expression);
    if (ts.isIdentifier(inner)) {
      const symbol = this.checker.getSymbolAtLocation(inner);
      const declaration = symbol?.valueDeclaration;
      if (
        !symbol ||
        this.narrowedIn(inner.getSourceFile()).has(symbol) ||
        !declaration ||
        !ts.isVariableDeclaration(declaration) ||
        declaration.type ||
        !declaration.initializer ||
        !(ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const)
      )
        return undefined;
      const initializer = withoutParentheses(declaration.initializer);
      return ts.isCallExpression(initializer) ? this.returnedType(initializer, depth + 1) : undefined;
    }
    if (!ts.isCallExpression(inner)) return undefined;
    const callee = withoutParentheses(inner.expression);
    let calleeType: ts.Type | undefined;
    let receiver: ts.Type | undefined;
    if (ts.isPropertyAccessExpression(callee)) {
      receiver = this.returnedType(callee.expression, depth + 1) ?? this.plainType(callee.expression);
      const member = receiver && this.checker.getPropertyOfType(receiver, callee.name.text);
      calleeType = member && this.checker.getTypeOfSymbol(member);
    } else {
      calleeType = this.plainType(callee);
    }
    const signatures = calleeType?.getCallSignatures() ?? [];
    // Of overloads the checker picks one by the arguments: cheap to ask when they are literals.
    const signature =
      signatures.length === 1
        ? signatures[0]
        : signatures.length > 1 && inner.arguments.every(isLiteralArgument)
          ? this.resolvedSignature(inner)
          : undefined;
    if (!signature) return undefined;
    const returned = this.checker.getReturnTypeOfSignature(signature);
    if ((returned as { isThisType?: boolean }).isThisType) return receiver;
    if (!(returned.flags & ts.TypeFlags.Object)) return undefined;
    const objectFlags = (returned as ts.ObjectType).objectFlags;
    return objectFlags & (ts.ObjectFlags.Mapped | ts.ObjectFlags.ReverseMapped) ? undefined : returned;
  }

  private resolvedSignature(call: ts.CallExpression): ts.Signature | undefined {
    try {
      return this.checker.getResolvedSignature(call);
    } catch {
      return undefined;
    }
  }

  /**
   * The names of a file that may hold a subtype of their declared type somewhere: the left of an
   * `instanceof`, or an argument of a call in a condition or standing alone (a type guard, an
   * assertion function). Their members are left to the checker, which follows the narrowing.
   */
  private narrowedIn(file: ts.SourceFile): Set<ts.Symbol> {
    let found = this.narrowed.get(file);
    if (!found) {
      const names = new Set<ts.Symbol>();
      const visit = (node: ts.Node): void => {
        if (ts.isIdentifier(node) && mayNarrow(node)) {
          const symbol = this.checker.getSymbolAtLocation(node);
          if (symbol) names.add(symbol);
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
      found = names;
      this.narrowed.set(file, found);
    }
    return found;
  }

  /**
   * The type of a name that holds no inferred value: a namespace, an imported or declared
   * function or class, `this`, or an annotated parameter or variable.
   */
  private plainType(expression: ts.Expression): ts.Type | undefined {
    const inner = withoutParentheses(expression);
    if (inner.kind === ts.SyntaxKind.ThisKeyword) return this.checker.getTypeAtLocation(inner);
    if (!ts.isIdentifier(inner)) return undefined;
    const declaration = this.symbolAt(inner)?.valueDeclaration;
    if (
      !declaration ||
      !(
        ts.isSourceFile(declaration) ||
        ts.isModuleDeclaration(declaration) ||
        ts.isFunctionDeclaration(declaration) ||
        ts.isClassDeclaration(declaration) ||
        ((ts.isParameter(declaration) || ts.isVariableDeclaration(declaration)) && declaration.type)
      )
    )
      return undefined;
    return this.checker.getTypeAtLocation(inner);
  }

  /** The symbol a name means, followed through imports and re-exports to its declaration. */
  symbolAt(node: ts.Node): ts.Symbol | undefined {
    const symbol = this.checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) return this.checker.getAliasedSymbol(symbol);
    return symbol;
  }

  private namedSignatureDeclaration(call: CallNode): ts.Node | undefined {
    let declaration: ts.Node | undefined;
    try {
      declaration = this.checker.getResolvedSignature(call)?.declaration;
    } catch {
      return undefined;
    }
    if (!declaration || ts.isJSDocSignature(declaration)) return undefined;
    // `new X()` reaches the class, as the syntactic pass records it.
    if (ts.isConstructorDeclaration(declaration)) return declaration.parent;
    if (ts.isClassLike(declaration)) return declaration;
    if (ts.isFunctionExpression(declaration) || ts.isArrowFunction(declaration)) {
      const holder = declaration.parent;
      return ts.isVariableDeclaration(holder) ||
        ts.isPropertyDeclaration(holder) ||
        ts.isPropertyAssignment(holder)
        ? holder
        : undefined;
    }
    if (
      ts.isFunctionDeclaration(declaration) ||
      ts.isMethodDeclaration(declaration) ||
      ts.isMethodSignature(declaration) ||
      ts.isGetAccessorDeclaration(declaration) ||
      ts.isSetAccessorDeclaration(declaration)
    ) {
      return declaration.name ? declaration : undefined;
    }
    // A call signature or function type: the type of the value, declared apart from any value.
    return undefined;
  }
}

/** Whether a name is used where a type guard could narrow it (see narrowedIn). */
function mayNarrow(name: ts.Identifier): boolean {
  const parent = name.parent;
  if (ts.isBinaryExpression(parent))
    return parent.left === name && parent.operatorToken.kind === ts.SyntaxKind.InstanceOfKeyword;
  if (!ts.isCallExpression(parent) || !parent.arguments.some((argument) => argument === name)) return false;
  let call: ts.Node = parent;
  while (ts.isParenthesizedExpression(call.parent)) call = call.parent;
  const holder = call.parent;
  return (
    ts.isExpressionStatement(holder) ||
    ts.isIfStatement(holder) ||
    ts.isWhileStatement(holder) ||
    ts.isDoStatement(holder) ||
    ts.isForStatement(holder) ||
    (ts.isConditionalExpression(holder) && holder.condition === call) ||
    (ts.isPrefixUnaryExpression(holder) && holder.operator === ts.SyntaxKind.ExclamationToken) ||
    (ts.isBinaryExpression(holder) &&
      (holder.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken ||
        holder.operatorToken.kind === ts.SyntaxKind.BarBarToken))
  );
}

/** `"iso"`, `3`, `true`, `{ message: "too short", abort: true }`: arguments typed without inference. */
function isLiteralArgument(argument: ts.Expression): boolean {
  if (ts.isObjectLiteralExpression(argument))
    return argument.properties.every(
      (property) => ts.isPropertyAssignment(property) && isLiteralValue(property.initializer),
    );
  return isLiteralValue(argument);
}

function isLiteralValue(value: ts.Expression): boolean {
  return (
    ts.isStringLiteralLike(value) ||
    ts.isNumericLiteral(value) ||
    value.kind === ts.SyntaxKind.TrueKeyword ||
    value.kind === ts.SyntaxKind.FalseKeyword ||
    value.kind === ts.SyntaxKind.NullKeyword
  );
}

/** `(x)` and `x!`: the same value of the same type (unlike `x as T`, whose type is `T`). */
function withoutParentheses(expression: ts.Expression): ts.Expression {
  let inner = expression;
  while (ts.isParenthesizedExpression(inner) || ts.isNonNullExpression(inner)) inner = inner.expression;
  return inner;
}

/** `(f)`, `f!`, `f as F`, `f satisfies F` and `<F>f` all call `f`. */
export function skipWrappers(expression: ts.Expression): ts.Expression {
  let inner = expression;
  while (
    ts.isParenthesizedExpression(inner) ||
    ts.isNonNullExpression(inner) ||
    ts.isAsExpression(inner) ||
    ts.isSatisfiesExpression(inner) ||
    ts.isTypeAssertionExpression(inner)
  ) {
    inner = inner.expression;
  }
  return inner;
}

function calleeName(callee: ts.Expression): ts.Node | undefined {
  if (ts.isIdentifier(callee)) return callee;
  if (ts.isPropertyAccessExpression(callee)) return callee.name;
  if (ts.isElementAccessExpression(callee) && ts.isStringLiteralLike(callee.argumentExpression))
    return callee.argumentExpression;
  return undefined;
}

function nameText(node: ts.Node): string {
  return ts.isIdentifier(node) || ts.isPrivateIdentifier(node) || ts.isStringLiteralLike(node)
    ? node.text
    : node.getText();
}

function declaredName(declaration: ts.Node): string | undefined {
  const name = ts.getNameOfDeclaration(declaration as ts.Declaration);
  return name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name)) ? name.text : undefined;
}

/** The callee as written, its end kept when long: a chain's text grows with every link. */
function calleeText(callee: ts.Expression): string {
  const file = callee.getSourceFile();
  const start = callee.getStart(file);
  const from = Math.max(start, callee.end - MAX_TEXT * 2);
  const text = file.text.slice(from, callee.end).replace(/\s+/g, '');
  const kept = text.slice(-MAX_TEXT);
  return from > start || kept.length < text.length ? `…${kept}` : kept;
}

/** What a call can run: a merged type alias, interface or namespace of the same name cannot. */
function valueDeclarations(declarations: readonly ts.Declaration[]): readonly ts.Declaration[] {
  const values = declarations.filter(
    (declaration) =>
      !ts.isTypeAliasDeclaration(declaration) &&
      !ts.isInterfaceDeclaration(declaration) &&
      !ts.isModuleDeclaration(declaration),
  );
  return values.length > 0 ? values : declarations;
}

/** A declaration that holds a value made elsewhere, rather than declaring the function itself. */
function holdsValue(declaration: ts.Declaration): boolean {
  if (
    ts.isVariableDeclaration(declaration) ||
    ts.isPropertyDeclaration(declaration) ||
    ts.isPropertyAssignment(declaration) ||
    ts.isParameter(declaration) ||
    ts.isBindingElement(declaration)
  ) {
    const value = declaration.initializer && skipWrappers(declaration.initializer);
    return (
      !value || !(ts.isFunctionExpression(value) || ts.isArrowFunction(value) || ts.isClassExpression(value))
    );
  }
  return ts.isPropertySignature(declaration) || ts.isShorthandPropertyAssignment(declaration);
}
