import type { UrlPiece } from '../facts.js';
import type { SyntaxNode } from '../syntax.js';
import { anonymousName, Constants, formatPieces, type HttpSyntax, joinPieces } from './http-syntax.js';

/** `%s`, `%d`, `%v`: fmt.Sprintf verbs. */
const VERB = /%[-+# 0]*\d*(\.\d+)?[vdsqxXfegtT]/;

const GO_FUNCTIONS = new Set(['function_declaration', 'method_declaration', 'func_literal']);

export function goSyntax(root: SyntaxNode): HttpSyntax {
  const constants = new Constants(function* () {
    for (const spec of root.descendantsOfType(['const_spec', 'var_spec'])) {
      const names = spec.childrenForFieldName('name');
      const values = spec.childForFieldName('value')?.namedChildren ?? [];
      for (const [position, name] of names.entries()) {
        const value = values[position];
        if (value) yield [name.text, value];
      }
    }
    for (const declaration of root.descendantsOfType(['short_var_declaration', 'assignment_statement'])) {
      const names = declaration.childForFieldName('left')?.namedChildren ?? [];
      const values = declaration.childForFieldName('right')?.namedChildren ?? [];
      for (const [position, name] of names.entries()) {
        const value = values[position];
        if (name.type === 'identifier' && value) yield [name.text, value];
      }
    }
  });

  const read = (node: SyntaxNode): UrlPiece[] | undefined => {
    switch (node.type) {
      case 'interpreted_string_literal':
      case 'raw_string_literal':
        return [node.text.slice(1, -1)];
      case 'binary_expression': {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        if (!left || !right || node.childForFieldName('operator')?.text !== '+') return undefined;
        const [leftPieces, rightPieces] = [read(left), read(right)];
        if (!leftPieces && !rightPieces) return undefined;
        return joinPieces(
          leftPieces ?? [{ placeholder: left.text }],
          rightPieces ?? [{ placeholder: right.text }],
        );
      }
      case 'call_expression': {
        if (node.childForFieldName('function')?.text !== 'fmt.Sprintf') return undefined;
        const [format, ...args] = node.childForFieldName('arguments')?.namedChildren ?? [];
        const template = format && read(format);
        return template
          ? formatPieces(template, VERB, (_verb, position) => {
              const value = args[position];
              return value ? read(value) : undefined;
            })
          : undefined;
      }
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

  return {
    callTypes: ['call_expression'],
    calleeName(call) {
      const callee = call.childForFieldName('function');
      if (callee?.type === 'identifier') return callee.text;
      return callee?.type === 'selector_expression' ? callee.childForFieldName('field')?.text : undefined;
    },
    referenceShape(node) {
      if (node.type === 'identifier') return { callee: node.text };
      if (node.type !== 'selector_expression') return undefined;
      const field = node.childForFieldName('field')?.text;
      const operand = node.childForFieldName('operand');
      if (!field || !operand || !/^[\w.]+$/.test(operand.text)) return undefined;
      return { callee: field, receiver: { kind: 'name', name: operand.text } };
    },
    urlPieces: read,
    parameterOwner(identifier) {
      for (let node = identifier.parent; node; node = node.parent) {
        if (!GO_FUNCTIONS.has(node.type)) continue;
        const parameters = node.childForFieldName('parameters')?.namedChildren ?? [];
        const named = parameters.some((parameter) =>
          parameter.childrenForFieldName('name').some((name) => name.text === identifier.text),
        );
        if (named) return node.childForFieldName('name')?.text ?? anonymousName(node);
      }
      return undefined;
    },
  };
}
