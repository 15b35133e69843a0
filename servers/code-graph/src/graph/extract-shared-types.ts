import type { CallShape } from './facts.js';
import type { SyntaxNode } from './syntax.js';

/** What a language's reader sees through when it reads a type. */
export interface TypeReading {
  /** Generic types that stand for their first argument: Rust `Box<Money>`, C# `Task<Money>`. */
  transparent?: ReadonlySet<string>;
  /** What `Self` means where the type is read: the type of a Rust impl block or trait. */
  self?: string;
  /** C# writes type names as plain identifiers; elsewhere an identifier in a type is a parameter name. */
  identifiersAreTypes?: boolean;
}

/** Spelling a type names nothing by: Java's and C#'s inferred `var`. */
const NOT_A_TYPE = new Set(['var', '_']);

const NAME_NODES = new Set(['type_identifier', 'qualified_type', 'scoped_type_identifier', 'qualified_name']);
const GENERIC_NODES = new Set(['generic_type', 'generic_name']);
/** Nodes that wrap the one type they point to, refer to, or make optional. */
const WRAPPER_NODES = new Set([
  'pointer_type',
  'reference_type',
  'nullable_type',
  'parenthesized_type',
  'dynamic_type',
  'abstract_type',
  'annotated_type',
]);

/**
 * The class, struct, interface or alias a Go, Rust, Java or C# type names, when it names one:
 * `Money`, `*Money`, `&mut Money`, `Money?`, `dyn Rate`, `List<Money>` → `List`. Qualified names
 * come back dotted whatever the language writes (`money.Money`, `crate::money::Money` →
 * `crate.money.Money`), so the resolver walks them as it walks `ns.Money`. Arrays, maps,
 * functions, tuples and primitives give undefined.
 */
export function typeNamed(
  node: SyntaxNode | null | undefined,
  reading: TypeReading = {},
): string | undefined {
  if (!node) return undefined;
  if (NAME_NODES.has(node.type) || (node.type === 'identifier' && reading.identifiersAreTypes)) {
    return spelled(node.text, reading);
  }
  if (WRAPPER_NODES.has(node.type)) {
    const inner =
      node.childForFieldName('type') ?? node.childForFieldName('trait') ?? node.namedChildren.at(-1);
    return typeNamed(inner, reading);
  }
  if (GENERIC_NODES.has(node.type)) {
    const base = typeNamed(node.childForFieldName('type') ?? node.namedChild(0), {
      ...reading,
      identifiersAreTypes: true,
    });
    if (base && reading.transparent?.has(base)) return typeNamed(typeArguments(node)?.namedChild(0), reading);
    return base;
  }
  return undefined;
}

/**
 * Calls `visit` for every named type a type expression mentions, outermost first:
 * `map[string]*Money` → Money, `Result<Vec<Money>, Error>` → Result, Vec, Money, Error.
 */
export function forEachNamedType(
  node: SyntaxNode | null | undefined,
  reading: TypeReading,
  visit: (type: string, node: SyntaxNode) => void,
  depth = 0,
): void {
  if (!node || depth > 64) return;
  const named = NAME_NODES.has(node.type) || (node.type === 'identifier' && reading.identifiersAreTypes);
  if (named) {
    const type = spelled(node.text, reading);
    if (type) visit(type, node);
    return;
  }
  if (GENERIC_NODES.has(node.type)) {
    const base = node.childForFieldName('type') ?? node.namedChild(0);
    const type = base && spelled(base.text, reading);
    if (type) visit(type, base);
    forEachNamedType(typeArguments(node), reading, visit, depth + 1);
    return;
  }
  for (const child of node.namedChildren) forEachNamedType(child, reading, visit, depth + 1);
}

function typeArguments(generic: SyntaxNode): SyntaxNode | null | undefined {
  return (
    generic.childForFieldName('type_arguments') ??
    generic.namedChildren.find(
      (child) => child.type === 'type_arguments' || child.type === 'type_argument_list',
    )
  );
}

function spelled(text: string, reading: TypeReading): string | undefined {
  const dotted = text.replace(/\s*(::|\.)\s*/g, '.').replace(/^global\./, '');
  if (NOT_A_TYPE.has(dotted) || !/^[\p{L}_][\p{L}\p{N}_]*(\.[\p{L}_][\p{L}\p{N}_]*)*$/u.test(dotted)) {
    return undefined;
  }
  if (reading.self && (dotted === 'Self' || dotted.startsWith('Self.')))
    return reading.self + dotted.slice(4);
  return dotted;
}

/**
 * Making a value of a named type, as a call of the type (`new Money(…)`, Go's `Money{…}`, Rust's
 * `Money { … }`): `Money` is looked up as written, `bank.Money` as Money in what `bank` names.
 */
export function constructionOf(type: string): CallShape {
  const dot = type.lastIndexOf('.');
  return dot < 0
    ? { callee: type, construct: true }
    : { callee: type.slice(dot + 1), receiver: { kind: 'name', name: type.slice(0, dot) }, construct: true };
}
