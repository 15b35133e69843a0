import type { SyntaxNode } from '../syntax.js';
import type { HttpDetector, HttpFile } from './http-file.js';
import { stringValue } from './http-syntax.js';

/** Client methods and helpers of net/http: the method each sends, and where its URL argument is. */
const SENDERS = new Map([
  ['Get', 'GET'],
  ['Head', 'HEAD'],
  ['Post', 'POST'],
  ['PostForm', 'POST'],
]);
const REQUESTS = new Map([
  ['NewRequest', 0],
  ['NewRequestWithContext', 1],
]);

/** Go's net/http: `http.Get(url)`, `http.Post(…)`, `http.NewRequest("GET", url, body)`, and the same on `http.DefaultClient` or a client value. */
export const goNetHttp: HttpDetector = {
  applies: (_path, source) =>
    /\bhttp\.(Get|Head|Post|PostForm|NewRequest|NewRequestWithContext|DefaultClient|Client)\b/.test(source),
  detect(file) {
    const clients = new Set(['http', 'http.DefaultClient']);
    for (const literal of file.root.descendantsOfType('composite_literal')) {
      if (literal.childForFieldName('type')?.text !== 'http.Client') continue;
      let holder: SyntaxNode | null = literal.parent;
      if (holder?.type === 'unary_expression') holder = holder.parent;
      const declaration = holder?.parent;
      const name =
        declaration?.childForFieldName('left')?.namedChild(0) ?? declaration?.childForFieldName('name');
      if (name) clients.add(name.text);
    }
    for (const call of file.root.descendantsOfType('call_expression')) readCall(file, call, clients);
  },
};

function readCall(file: HttpFile, call: SyntaxNode, clients: Set<string>): void {
  const callee = call.childForFieldName('function');
  if (callee?.type !== 'selector_expression') return;
  const owner = callee.childForFieldName('operand')?.text ?? '';
  const field = callee.childForFieldName('field')?.text ?? '';
  const args = (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
    (arg) => arg.type !== 'comment',
  );
  const sent = clients.has(owner) ? SENDERS.get(field) : undefined;
  const methodAt = owner === 'http' ? REQUESTS.get(field) : undefined;
  const target = sent ? args[0] : methodAt !== undefined ? args[methodAt + 1] : undefined;
  if (!target || !file.claim(call)) return;
  const methodNode = methodAt !== undefined ? args[methodAt] : undefined;
  const method = sent ?? (methodNode && (stringValue(file.syntax, methodNode) ?? methodConstant(methodNode)));
  file.addClient(call, {
    ...(method && { method }),
    url: file.syntax.urlPieces(target) ?? [{ placeholder: target.text }],
    library: 'net/http',
  });
}

/** `http.MethodGet` → GET. */
function methodConstant(node: SyntaxNode): string | undefined {
  return /^http\.Method(\w+)$/.exec(node.text)?.[1]?.toUpperCase();
}
