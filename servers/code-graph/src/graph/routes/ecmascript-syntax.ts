import type { UrlPiece } from '../facts.js';
import type { SyntaxNode } from '../syntax.js';
import { anonymousName, Constants, type HttpSyntax, joinPieces } from './http-syntax.js';

export const ECMASCRIPT_FUNCTIONS = new Set([
  'arrow_function',
  'function_expression',
  'function',
  'function_declaration',
  'generator_function',
  'generator_function_declaration',
  'method_definition',
]);

const WRAPPERS = new Set([
  'parenthesized_expression',
  'as_expression',
  'satisfies_expression',
  'non_null_expression',
]);

/** TypeScript, TSX and JavaScript, whose grammars share these node types. */
export function ecmascriptSyntax(root: SyntaxNode): HttpSyntax {
  const constants = new Constants(function* () {
    for (const declarator of root.descendantsOfType('variable_declarator')) {
      const name = declarator.childForFieldName('name');
      const value = declarator.childForFieldName('value');
      if (name?.type === 'identifier' && value) yield [name.text, value];
    }
  });

  const read = (node: SyntaxNode): UrlPiece[] | undefined => {
    switch (node.type) {
      case 'string':
        return [node.text.slice(1, -1)];
      case 'template_string':
        return joinPieces(
          ...node.namedChildren.map((child) => {
            if (child.type !== 'template_substitution') return [child.text];
            const inner = child.namedChild(0);
            return (inner && read(inner)) ?? [{ placeholder: child.text }];
          }),
        );
      case 'binary_expression': {
        const operator = node.childForFieldName('operator')?.text;
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        if (!left || !right) return undefined;
        if (operator === '||' || operator === '??') return read(right) ?? read(left);
        if (operator !== '+') return undefined;
        const [leftPieces, rightPieces] = [read(left), read(right)];
        if (!leftPieces && !rightPieces) return undefined;
        return joinPieces(
          leftPieces ?? [{ placeholder: `\${${left.text}}` }],
          rightPieces ?? [{ placeholder: `\${${right.text}}` }],
        );
      }
      case 'identifier':
      case 'shorthand_property_identifier':
        return constants.read(node.text, node, read);
      default: {
        const inner = WRAPPERS.has(node.type) ? node.namedChild(0) : null;
        return inner ? read(inner) : undefined;
      }
    }
  };

  return {
    callTypes: ['call_expression', 'new_expression'],
    calleeName(call) {
      const callee = call.childForFieldName(call.type === 'new_expression' ? 'constructor' : 'function');
      if (callee?.type === 'identifier') return callee.text;
      return callee?.type === 'member_expression' ? callee.childForFieldName('property')?.text : undefined;
    },
    referenceShape(node) {
      if (node.type === 'identifier' || node.type === 'shorthand_property_identifier')
        return { callee: node.text };
      if (node.type !== 'member_expression') return undefined;
      const property = node.childForFieldName('property')?.text;
      const object = node.childForFieldName('object');
      if (!property || !object) return undefined;
      if (object.type === 'this') return { callee: property, receiver: { kind: 'self' } };
      return /^[\w$.]+$/.test(object.text)
        ? { callee: property, receiver: { kind: 'name', name: object.text } }
        : undefined;
    },
    urlPieces: read,
    parameterOwner(identifier) {
      for (let node = identifier.parent; node; node = node.parent) {
        if (!ECMASCRIPT_FUNCTIONS.has(node.type)) continue;
        const parameters = node.childForFieldName('parameters') ?? node.childForFieldName('parameter');
        const list = parameters?.type === 'identifier' ? [parameters] : (parameters?.namedChildren ?? []);
        const named = list.some(
          (parameter) => (parameter.childForFieldName('pattern') ?? parameter).text === identifier.text,
        );
        if (named) return functionName(node);
      }
      return undefined;
    },
  };
}

/**
 * The name a function goes by where it is mounted from: its own, its variable's, `default` for
 * a default export (or `module.exports =`), else its position, unique in the file.
 */
export function functionName(fn: SyntaxNode): string {
  const own = fn.childForFieldName('name')?.text;
  if (own) return own;
  const parent = fn.parent;
  if (parent?.type === 'variable_declarator')
    return parent.childForFieldName('name')?.text ?? anonymousName(fn);
  if (parent?.type === 'export_statement') return 'default';
  if (parent?.type === 'assignment_expression' && parent.childForFieldName('left')?.text === 'module.exports')
    return 'default';
  return anonymousName(fn);
}

export function callArguments(call: SyntaxNode): SyntaxNode[] {
  return (call.childForFieldName('arguments')?.namedChildren ?? []).filter((arg) => arg.type !== 'comment');
}

/** The value of `key` in an object literal (`{ key: value }` or shorthand `{ key }`). */
export function objectProperty(object: SyntaxNode | null | undefined, key: string): SyntaxNode | null {
  if (object?.type !== 'object') return null;
  for (const pair of object.namedChildren) {
    if (pair.type === 'pair' && pair.childForFieldName('key')?.text.replace(/['"]/g, '') === key)
      return pair.childForFieldName('value');
    if (pair.type === 'shorthand_property_identifier' && pair.text === key) return pair;
  }
  return null;
}
