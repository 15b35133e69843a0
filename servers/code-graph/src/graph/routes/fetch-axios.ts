import type { UrlPiece } from '../facts.js';
import type { SyntaxNode } from '../syntax.js';
import { callArguments, objectProperty } from './ecmascript-syntax.js';
import type { HttpDetector, HttpFile } from './http-file.js';
import { joinPieces, stringValue } from './http-syntax.js';

const VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);
const GLOBALS = new Set(['window', 'globalThis', 'self']);

/**
 * fetch and axios clients: `fetch(url, { method })`, `axios.get(url)`, `axios({ method, url })`,
 * instances `axios.create({ baseURL })` (their base URL prepended), and `api.get('/x')` on an
 * instance imported from another file, which the linker looks up there.
 */
export const fetchAxios: HttpDetector = {
  applies: (_path, source) =>
    /\bfetch\s*\(|axios|\.(get|post|put|patch|delete|head|options|request)\s*\(\s*[`'"]/.test(source),
  detect: (file) => new ClientReader(file).read(),
};

class ClientReader {
  private readonly axios = new Set(['axios']);
  /** Names imported from files of the root: possibly client instances made there. */
  private readonly imported = new Set<string>();
  private readonly instances = new Map<string, UrlPiece[]>();

  constructor(private readonly file: HttpFile) {}

  read(): void {
    for (const fact of this.file.facts.imports) {
      const local = fact.specifier.startsWith('.') || fact.specifier.startsWith('/');
      for (const binding of fact.bindings) {
        if (fact.specifier === 'axios') this.axios.add(binding.local);
        else if (local) this.imported.add(binding.local);
      }
    }
    for (const declarator of this.file.root.descendantsOfType('variable_declarator')) {
      const name = declarator.childForFieldName('name');
      const value = declarator.childForFieldName('value');
      const callee = value?.type === 'call_expression' ? value.childForFieldName('function') : null;
      if (name?.type !== 'identifier' || !value || callee?.type !== 'member_expression') continue;
      const factory = callee.childForFieldName('object')?.text ?? '';
      if (!this.axios.has(factory) || callee.childForFieldName('property')?.text !== 'create') continue;
      const baseUrl = this.url(objectProperty(callArguments(value)[0], 'baseURL')) ?? [];
      this.instances.set(name.text, baseUrl);
      this.file.addInstance(name.text, baseUrl);
    }
    for (const call of this.file.root.descendantsOfType('call_expression')) this.readCall(call);
  }

  /** Cheap tests first: most calls in a file are none of these, and reading a node's text costs. */
  private readCall(call: SyntaxNode): void {
    const callee = call.childForFieldName('function');
    if (callee?.type === 'identifier') {
      if (callee.text === 'fetch') this.fetch(call, callArguments(call));
      else if (this.axios.has(callee.text)) this.configured(call, callArguments(call), [], undefined);
      return;
    }
    if (callee?.type !== 'member_expression') return;
    const member = callee.childForFieldName('property')?.text ?? '';
    if (member !== 'fetch' && member !== 'request' && !VERBS.has(member)) return;
    const object = callee.childForFieldName('object');
    if (object?.type !== 'identifier') return;
    const base = this.axios.has(object.text) ? [] : this.instances.get(object.text);
    if (member === 'fetch') {
      if (GLOBALS.has(object.text)) this.fetch(call, callArguments(call));
    } else if (base) this.axiosMethod(call, member, callArguments(call), base, undefined);
    else if (this.imported.has(object.text)) {
      const args = callArguments(call);
      if (stringValue(this.file.syntax, args[0])?.startsWith('/') !== false)
        this.axiosMethod(call, member, args, [], object.text);
    }
  }

  /** `fetch(url)` is a GET; `fetch(url, { method })` says, unless it computes the method. */
  private fetch(call: SyntaxNode, args: SyntaxNode[]): void {
    const [target, init] = args;
    if (!target || !this.file.claim(call)) return;
    const methodNode = objectProperty(init, 'method');
    const method = methodNode
      ? stringValue(this.file.syntax, methodNode)
      : init && init.type !== 'object'
        ? undefined
        : 'GET';
    this.file.addClient(call, {
      ...(method && { method }),
      url: this.urlOrPlaceholder(target),
      library: 'fetch',
    });
  }

  /** `client.get(url)` and the rest of the method helpers, or `client.request(config)`. */
  private axiosMethod(
    call: SyntaxNode,
    member: string,
    args: SyntaxNode[],
    base: UrlPiece[],
    instance: string | undefined,
  ): void {
    if (member === 'request') {
      this.configured(call, args, base, instance);
      return;
    }
    const [target] = args;
    if (!VERBS.has(member) || !target || !this.file.claim(call)) return;
    this.file.addClient(call, {
      method: member,
      url: joinPieces(base, this.urlOrPlaceholder(target)),
      library: 'axios',
      ...(instance && { instance }),
    });
  }

  /** `axios(config)`, `axios(url, config)`: url, method and baseURL from the config object. */
  private configured(
    call: SyntaxNode,
    args: SyntaxNode[],
    base: UrlPiece[],
    instance: string | undefined,
  ): void {
    const [first, second] = args;
    const config = first?.type === 'object' ? first : second;
    const target = first?.type === 'object' ? objectProperty(first, 'url') : first;
    if (!target || !this.file.claim(call)) return;
    const methodNode = objectProperty(config, 'method');
    const method = methodNode ? stringValue(this.file.syntax, methodNode) : 'GET';
    const configBase = this.url(objectProperty(config, 'baseURL'));
    this.file.addClient(call, {
      ...(method && { method }),
      url: joinPieces(configBase ?? base, this.urlOrPlaceholder(target)),
      library: 'axios',
      ...(instance && !configBase && { instance }),
    });
  }

  private url(node: SyntaxNode | null | undefined): UrlPiece[] | undefined {
    return node ? this.file.syntax.urlPieces(node) : undefined;
  }

  private urlOrPlaceholder(node: SyntaxNode): UrlPiece[] {
    return this.url(node) ?? [{ placeholder: node.text }];
  }
}
