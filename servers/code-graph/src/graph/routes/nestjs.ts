import { leadingComment } from '../doc-comments.js';
import { endLineOf, lineOf, type SyntaxNode, signatureOf } from '../syntax.js';
import { callArguments, objectProperty } from './ecmascript-syntax.js';
import type { HttpDetector, HttpFile } from './http-file.js';
import { stringValue } from './http-syntax.js';
import { joinPath } from './path-patterns.js';

const METHOD_DECORATORS = new Map([
  ['Get', 'GET'],
  ['Post', 'POST'],
  ['Put', 'PUT'],
  ['Patch', 'PATCH'],
  ['Delete', 'DELETE'],
  ['Options', 'OPTIONS'],
  ['Head', 'HEAD'],
  ['All', 'ANY'],
]);

/** NestJS: `@Controller('users')` classes with `@Get(':id')` methods, and `app.setGlobalPrefix('api')`. */
export const nestjs: HttpDetector = {
  applies: (_path, source) => source.includes('@Controller') || source.includes('setGlobalPrefix'),
  detect(file) {
    for (const declaration of file.root.descendantsOfType([
      'class_declaration',
      'abstract_class_declaration',
    ]))
      readController(file, declaration);
    for (const call of file.root.descendantsOfType('call_expression')) {
      const callee = call.childForFieldName('function');
      if (
        callee?.type !== 'member_expression' ||
        callee.childForFieldName('property')?.text !== 'setGlobalPrefix'
      )
        continue;
      const prefix = stringValue(file.syntax, callArguments(call)[0]);
      if (prefix !== undefined && file.claim(call))
        file.addMount({
          on: '',
          prefix: joinPath('', prefix),
          target: { framework: 'nestjs' },
          line: lineOf(call),
        });
    }
  },
};

function readController(file: HttpFile, declaration: SyntaxNode): void {
  const classDecorators = [
    ...declaration.namedChildren,
    ...(declaration.parent?.type === 'export_statement' ? declaration.parent.namedChildren : []),
  ].filter((child) => child.type === 'decorator');
  const controller = classDecorators.map(decoratorCall).find((call) => call?.name === 'Controller');
  const className = declaration.childForFieldName('name')?.text;
  if (!controller || !className) return;
  const [first] = controller.args;
  const prefix =
    stringValue(file.syntax, first) ?? stringValue(file.syntax, objectProperty(first, 'path')) ?? '';
  const classIndex = file.symbolAt(['class'], className, lineOf(declaration));
  let pending: SyntaxNode[] = [];
  for (const member of declaration.childForFieldName('body')?.namedChildren ?? []) {
    if (member.type === 'decorator' || member.type === 'comment') {
      if (member.type === 'decorator') pending.push(member);
      continue;
    }
    if (member.type === 'method_definition')
      readMethod(file, { className, classIndex, prefix }, member, pending);
    pending = [];
  }
}

function readMethod(
  file: HttpFile,
  controller: { className: string; classIndex: number | undefined; prefix: string },
  method: SyntaxNode,
  decorators: SyntaxNode[],
): void {
  const name = method.childForFieldName('name')?.text;
  const index = file.facts.symbols.findIndex(
    (symbol) => symbol.kind === 'method' && symbol.name === name && symbol.parent === controller.classIndex,
  );
  for (const decorator of decorators) {
    const call = decoratorCall(decorator);
    const verb = call && METHOD_DECORATORS.get(call.name);
    if (!verb || !call) continue;
    const path = stringValue(file.syntax, call.args[0]) ?? '';
    file.addRoute({
      method: verb,
      path: joinPath(joinPath('', controller.prefix), path),
      framework: 'nestjs',
      on: controller.className,
      declaration: {
        startLine: lineOf(decorator),
        endLine: endLineOf(method),
        signature: `${decorator.text} ${signatureOf(method, method.childForFieldName('body'))}`,
        // A doc comment sits above the decorators, where the extractor does not look for it.
        doc: file.facts.symbols[index]?.doc || leadingComment(decorators[0] ?? method),
      },
      handlers: index >= 0 ? [{ symbol: index }] : [],
    });
  }
}

/** `@Get(':id')` → Get and its arguments; `@Injectable` → Injectable, none. */
function decoratorCall(decorator: SyntaxNode | undefined): { name: string; args: SyntaxNode[] } | undefined {
  const expression = decorator?.namedChild(0);
  if (expression?.type === 'identifier') return { name: expression.text, args: [] };
  if (expression?.type !== 'call_expression') return undefined;
  const callee = expression.childForFieldName('function');
  const name =
    callee?.type === 'member_expression' ? callee.childForFieldName('property')?.text : callee?.text;
  return name ? { name, args: callArguments(expression) } : undefined;
}
