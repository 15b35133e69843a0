// What TypeScript and JavaScript nodes mean to the reader; the three grammars share these node types.
import type { SyntaxNode } from './syntax.js';

export const FUNCTION_VALUES = new Set([
  'arrow_function',
  'function_expression',
  'function',
  'generator_function',
]);
export const CLASS_NODES = new Set(['class_declaration', 'abstract_class_declaration', 'class']);
/** Nodes that hold no declaration, call or type: the walk does not look inside them. */
export const LEAVES = new Set([
  'comment',
  'identifier',
  'property_identifier',
  'private_property_identifier',
  'shorthand_property_identifier',
  'statement_identifier',
  'string',
  'number',
  'regex',
  'true',
  'false',
  'null',
  'undefined',
  'this',
  'super',
  'predefined_type',
  'empty_statement',
  'hash_bang_line',
]);

/** A `private` member: `private x` or `#x`. */
export function isPrivate(member: SyntaxNode): boolean {
  if (member.childForFieldName('name')?.type === 'private_property_identifier') return true;
  return member.namedChildren.some(
    (child) => child.type === 'accessibility_modifier' && child.text === 'private',
  );
}

/** A constructor parameter that declares a field: `constructor(private rates: Rates)`. */
export function isParameterProperty(parameter: SyntaxNode): boolean {
  return (
    parameter.namedChildren.some(
      (child) => child.type === 'accessibility_modifier' || child.type === 'override_modifier',
    ) || parameter.children.some((child) => child.type === 'readonly')
  );
}

/** `new Money(…)` → `Money`: the syntax gives the type of what it makes. */
export function constructedType(value: SyntaxNode | null): string | undefined {
  let node = value;
  while (node && (node.type === 'await_expression' || node.type === 'parenthesized_expression')) {
    node = node.namedChild(0);
  }
  if (node?.type !== 'new_expression') return undefined;
  const made = node.childForFieldName('constructor');
  return made && /^[\w$.]+$/.test(made.text) ? made.text : undefined;
}

/** `this.rates` → `rates`. */
export function thisField(node: SyntaxNode, type = node.type): string | undefined {
  if (type !== 'member_expression') return undefined;
  if (node.childForFieldName('object')?.type !== 'this') return undefined;
  return node.childForFieldName('property')?.text;
}
