// What C and C++ declarators and type names say, read alike by both grammars.
import type { CallShape } from './facts.js';
import type { SyntaxNode } from './syntax.js';

const WRAPPING_DECLARATORS = new Set([
  'pointer_declarator',
  'reference_declarator',
  'array_declarator',
  'init_declarator',
  'attributed_declarator',
]);
/** Class templates whose instances are used through `->` as the type they hold. */
const SMART_POINTERS = new Set([
  'unique_ptr',
  'shared_ptr',
  'weak_ptr',
  'std.unique_ptr',
  'std.shared_ptr',
  'std.weak_ptr',
]);

export function constructShape(type: string): CallShape {
  const cut = type.lastIndexOf('.');
  return cut < 0
    ? { callee: type, construct: true }
    : { callee: type.slice(cut + 1), receiver: { kind: 'name', name: type.slice(0, cut) }, construct: true };
}

export function dotted(text: string): string {
  return text.replace(/\s+/g, '').replace(/^::/, '').split('::').join('.');
}

export function hasStorage(node: SyntaxNode, keyword: string): boolean {
  return node.namedChildren.some(
    (child) => child.type === 'storage_class_specifier' && child.text === keyword,
  );
}

/**
 * The function declarator a declarator ends in (`Money* make()` wraps it in a pointer
 * declarator); undefined for variables, including pointers to functions (`int (*f)(int)`).
 */
export function functionDeclarator(node: SyntaxNode | null): SyntaxNode | undefined {
  let current = node;
  while (current && WRAPPING_DECLARATORS.has(current.type) && current.type !== 'init_declarator') {
    current = current.childForFieldName('declarator') ?? current.namedChildren.at(-1) ?? null;
  }
  if (current?.type !== 'function_declarator') return undefined;
  return current.childForFieldName('declarator')?.type === 'parenthesized_declarator' ? undefined : current;
}

/** The name a declarator declares, through pointers, references, arrays and initialisers. */
export function declaratorName(node: SyntaxNode | null): SyntaxNode | undefined {
  let current = node;
  while (current) {
    if (WRAPPING_DECLARATORS.has(current.type) || current.type === 'function_declarator') {
      current = current.childForFieldName('declarator') ?? current.namedChildren.at(-1) ?? null;
    } else if (current.type === 'parenthesized_declarator') {
      current = current.namedChild(0);
    } else {
      return ['identifier', 'field_identifier', 'type_identifier', 'qualified_identifier'].includes(
        current.type,
      )
        ? current
        : undefined;
    }
  }
  return undefined;
}

/** `bank::Money::add` → name `add`, owner [`bank`, `Money`]; `~Money`, `operator+` and `swap<int>` keep their text. */
export function splitName(node: SyntaxNode): { name: string; owner: string[] } {
  const owner: string[] = [];
  let current: SyntaxNode | null = node;
  while (current?.type === 'qualified_identifier') {
    const scope = current.childForFieldName('scope');
    if (scope)
      owner.push(
        (scope.type === 'template_type' ? scope.childForFieldName('name') : scope)?.text ?? scope.text,
      );
    current = current.childForFieldName('name');
  }
  if (current?.type === 'template_function' || current?.type === 'template_type') {
    current = current.childForFieldName('name');
  }
  return { name: current?.text.replace(/\s+/g, '') ?? '', owner };
}

/**
 * The class, struct or alias a type expression names: `Money`, `bank::Money` → `bank.Money`,
 * `const Money&` → `Money`, `std::unique_ptr<Money>` → `Money`, `struct account` → `account`.
 * Built-in types, `auto` and template parameters give what they are (built-ins: undefined).
 */
export function typeName(node: SyntaxNode | null): string | undefined {
  if (!node) return undefined;
  switch (node.type) {
    case 'type_identifier':
      return node.text;
    case 'qualified_identifier': {
      const { name, owner } = splitName(node);
      return [...owner, name].join('.');
    }
    case 'template_type': {
      const name = typeName(node.childForFieldName('name'));
      if (name && SMART_POINTERS.has(name)) {
        const held = node.childForFieldName('arguments')?.namedChild(0);
        return typeName(held?.childForFieldName('type') ?? held ?? null);
      }
      return name;
    }
    case 'type_descriptor':
      return typeName(node.childForFieldName('type'));
    case 'struct_specifier':
    case 'class_specifier':
    case 'union_specifier':
    case 'enum_specifier': {
      const name = node.childForFieldName('name');
      return name ? typeName(name) : undefined;
    }
    default:
      return undefined;
  }
}
