import type { SyntaxNode } from './syntax.js';

const NOTHING_TYPES = new Set(['null', 'undefined', 'None', 'void']);

/**
 * The class or interface a type annotation names, when it names exactly one: `Money`,
 * `Money | null`, `Promise<Money>` → `Promise`, `ns.Money`, Python `Optional[Money]` → `Money`.
 * Anything else (object types, unions of two classes, functions) gives undefined: no guess.
 */
export function namedType(node: SyntaxNode | null): string | undefined {
  if (!node) return undefined;
  switch (node.type) {
    case 'type_annotation':
    case 'type':
    case 'parenthesized_type':
      return namedType(node.namedChild(0));
    case 'type_identifier':
    case 'nested_type_identifier':
    case 'identifier':
    case 'attribute':
      return node.text;
    case 'generic_type': {
      const name = node.childForFieldName('name') ?? node.namedChild(0);
      const base = name?.text;
      // Python spells optional types as generics of the one class they hold.
      if (base === 'Optional') return namedType(node.namedChild(1)?.namedChild(0) ?? null);
      return base && !NOTHING_TYPES.has(base) ? base : undefined;
    }
    case 'union_type':
    case 'binary_operator': {
      const named = node.namedChildren.filter((part) => !NOTHING_TYPES.has(part.text));
      return named.length === 1 ? namedType(named[0] ?? null) : undefined;
    }
    case 'string':
      // Python forward references: `def f(m: "Money")`.
      return /^["'][A-Za-z_][\w.]*["']$/.test(node.text) ? node.text.slice(1, -1) : undefined;
    default:
      return undefined;
  }
}
