import type { UrlPiece } from '../facts.js';
import type { SyntaxNode } from '../syntax.js';
import type { HttpDetector, HttpFile } from './http-file.js';
import { joinPieces, stringValue } from './http-syntax.js';
import { pythonArguments } from './python-syntax.js';

const LIBRARIES = new Set(['requests', 'httpx', 'aiohttp']);
const VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);
/** What makes a session or client object, whose `base_url` its calls are relative to. */
const SESSIONS = new Set(['Session', 'Client', 'AsyncClient', 'ClientSession']);

/**
 * requests, httpx and aiohttp: `requests.get(url)`, `httpx.request("GET", url)`, and calls on a
 * session or client made in the file (`httpx.Client(base_url=…)`, also in `with … as client`).
 */
export const requestsHttpx: HttpDetector = {
  applies: (_path, source) => /\b(requests|httpx|aiohttp)\b/.test(source),
  detect(file) {
    const libraries = new Map<string, string>();
    for (const fact of file.facts.imports) {
      if (LIBRARIES.has(fact.specifier))
        for (const binding of fact.bindings) libraries.set(binding.local, fact.specifier);
    }
    const sessions = new Map<string, { library: string; base: UrlPiece[] }>();
    const bind = (name: SyntaxNode | null | undefined, value: SyntaxNode | null | undefined) => {
      const callee = value?.type === 'call' ? value.childForFieldName('function') : null;
      const library =
        callee?.type === 'attribute'
          ? libraries.get(callee.childForFieldName('object')?.text ?? '')
          : undefined;
      if (
        name?.type !== 'identifier' ||
        !value ||
        !library ||
        !SESSIONS.has(callee?.childForFieldName('attribute')?.text ?? '')
      )
        return;
      const base = pythonArguments(value).keywords.get('base_url');
      sessions.set(name.text, { library, base: (base && file.syntax.urlPieces(base)) ?? [] });
    };
    for (const assignment of file.root.descendantsOfType('assignment'))
      bind(assignment.childForFieldName('left'), assignment.childForFieldName('right'));
    for (const pattern of file.root.descendantsOfType('as_pattern'))
      bind(pattern.childForFieldName('alias')?.namedChild(0), pattern.namedChild(0));
    for (const call of file.root.descendantsOfType('call')) {
      const callee = call.childForFieldName('function');
      if (callee?.type !== 'attribute') continue;
      const owner = callee.childForFieldName('object')?.text ?? '';
      const member = callee.childForFieldName('attribute')?.text ?? '';
      const library = libraries.get(owner);
      const session = sessions.get(owner);
      if (library) readCall(file, call, member, library, []);
      else if (session) readCall(file, call, member, session.library, session.base);
    }
  },
};

function readCall(file: HttpFile, call: SyntaxNode, member: string, library: string, base: UrlPiece[]): void {
  const { positional, keywords } = pythonArguments(call);
  const request = member === 'request';
  if (!request && !VERBS.has(member)) return;
  const target = (request ? positional[1] : positional[0]) ?? keywords.get('url');
  const methodNode = request ? (positional[0] ?? keywords.get('method')) : undefined;
  if (!target || !file.claim(call)) return;
  const method = request ? methodNode && stringValue(file.syntax, methodNode) : member;
  file.addClient(call, {
    ...(method && { method }),
    url: joinPieces(base, file.syntax.urlPieces(target) ?? [{ placeholder: `{${target.text}}` }]),
    library,
  });
}
