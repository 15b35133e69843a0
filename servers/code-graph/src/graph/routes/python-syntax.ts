import type { UrlPiece } from '../facts.js';
import type { SyntaxNode } from '../syntax.js';
import { Constants, formatPieces, type HttpSyntax, joinPieces } from './http-syntax.js';

/** `%s`, `%(id)d`: printf-style directives of Python's `%` operator. */
const PERCENT_DIRECTIVE = /%(\([^)]*\))?[-#0 +]*\d*(\.\d+)?[sdifrxXeEgGc]/;
/** `{}`, `{0}`, `{item_id}`: fields of str.format. */
const FORMAT_FIELD = /\{[^{}]*\}/;

export function pythonSyntax(root: SyntaxNode): HttpSyntax {
  const constants = new Constants(function* () {
    for (const assignment of root.descendantsOfType('assignment')) {
      const left = assignment.childForFieldName('left');
      const right = assignment.childForFieldName('right');
      if (left?.type === 'identifier' && right) yield [left.text, right];
    }
  });
  const placeholder = (node: SyntaxNode): UrlPiece[] => read(node) ?? [{ placeholder: `{${node.text}}` }];

  const read = (node: SyntaxNode): UrlPiece[] | undefined => {
    switch (node.type) {
      case 'string': {
        const formatted = /f/i.test(node.child(0)?.text.replace(/['"]/g, '') ?? '');
        return joinPieces(
          ...node.namedChildren
            .filter((child) => child.type !== 'string_start' && child.type !== 'string_end')
            .map((child): UrlPiece[] => {
              if (child.type !== 'interpolation' || !formatted) return [child.text];
              const expression = child.childForFieldName('expression');
              return (expression && read(expression)) ?? [{ placeholder: child.text }];
            }),
        );
      }
      case 'concatenated_string':
        return joinPieces(...node.namedChildren.map((child) => read(child) ?? []));
      case 'binary_operator': {
        const operator = node.childForFieldName('operator')?.text;
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        if (!left || !right) return undefined;
        const template = read(left);
        if (operator === '%' && template) {
          const values = right.type === 'tuple' ? right.namedChildren : [right];
          return formatPieces(template, PERCENT_DIRECTIVE, (_directive, position) => {
            const value = values[position];
            return value ? read(value) : undefined;
          });
        }
        if (operator !== '+') return undefined;
        const rest = read(right);
        return template || rest
          ? joinPieces(template ?? placeholder(left), rest ?? placeholder(right))
          : undefined;
      }
      case 'boolean_operator': {
        const right = node.childForFieldName('right');
        const left = node.childForFieldName('left');
        return (right && read(right)) ?? (left ? read(left) : undefined);
      }
      case 'call':
        return readCall(node);
      case 'identifier':
        return constants.read(node.text, node, read);
      case 'parenthesized_expression': {
        const inner = node.namedChild(0);
        return inner ? read(inner) : undefined;
      }
      default:
        return undefined;
    }
  };

  /** `"/items/{}".format(x)`, and `os.environ.get("URL", "http://…")`'s default. */
  const readCall = (node: SyntaxNode): UrlPiece[] | undefined => {
    const callee = node.childForFieldName('function');
    if (callee?.type !== 'attribute') return undefined;
    const { positional, keywords } = pythonArguments(node);
    const object = callee.childForFieldName('object');
    if (callee.childForFieldName('attribute')?.text === 'format' && object) {
      const template = read(object);
      if (!template) return undefined;
      return formatPieces(template, FORMAT_FIELD, (field, position) => {
        const key = field.slice(1, -1).split(/[:!]/)[0] ?? '';
        const value = keywords.get(key) ?? positional[/^\d+$/.test(key) ? Number(key) : position];
        return value ? read(value) : undefined;
      });
    }
    const environment = callee.text === 'os.environ.get' || callee.text === 'os.getenv';
    const fallback = environment ? positional[1] : undefined;
    return fallback ? read(fallback) : undefined;
  };

  return {
    callTypes: ['call'],
    calleeName(call) {
      const callee = call.childForFieldName('function');
      if (callee?.type === 'identifier') return callee.text;
      return callee?.type === 'attribute' ? callee.childForFieldName('attribute')?.text : undefined;
    },
    referenceShape(node) {
      if (node.type === 'identifier') return { callee: node.text };
      if (node.type !== 'attribute') return undefined;
      const attribute = node.childForFieldName('attribute')?.text;
      const object = node.childForFieldName('object');
      if (!attribute || !object || !/^[\w.]+$/.test(object.text)) return undefined;
      if (object.text === 'self') return { callee: attribute, receiver: { kind: 'self' } };
      return { callee: attribute, receiver: { kind: 'name', name: object.text } };
    },
    urlPieces: read,
    parameterOwner(identifier) {
      for (let node = identifier.parent; node; node = node.parent) {
        if (node.type !== 'function_definition') continue;
        const parameters = node.childForFieldName('parameters')?.namedChildren ?? [];
        const named = parameters.some(
          (parameter) =>
            (parameter.type === 'identifier'
              ? parameter
              : (parameter.childForFieldName('name') ?? parameter.namedChild(0))
            )?.text === identifier.text,
        );
        if (named) return node.childForFieldName('name')?.text;
      }
      return undefined;
    },
  };
}

/** A Python call's positional arguments, and its keyword arguments by name. */
export function pythonArguments(call: SyntaxNode): {
  positional: SyntaxNode[];
  keywords: Map<string, SyntaxNode>;
} {
  const positional: SyntaxNode[] = [];
  const keywords = new Map<string, SyntaxNode>();
  for (const arg of call.childForFieldName('arguments')?.namedChildren ?? []) {
    if (arg.type === 'comment') continue;
    if (arg.type !== 'keyword_argument') {
      positional.push(arg);
      continue;
    }
    const name = arg.childForFieldName('name')?.text;
    const value = arg.childForFieldName('value');
    if (name && value) keywords.set(name, value);
  }
  return { positional, keywords };
}
