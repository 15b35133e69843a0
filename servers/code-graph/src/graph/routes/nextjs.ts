import { ECMASCRIPT_FUNCTIONS } from './ecmascript-syntax.js';
import type { HttpDetector, HttpFile } from './http-file.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
const APP_ROUTE = /(?:^|\/)app\/((?:[^/]+\/)*)route\.[cm]?[jt]sx?$/;
const PAGES_API = /(?:^|\/)pages\/(api(?:\/.*)?)\.[cm]?[jt]sx?$/;

/**
 * Next.js routes are files: `app/**\/route.ts` exporting GET, POST… (route groups `(x)` and
 * slots `@x` are not in the path; `_x` folders are private), and `pages/api/**`, whose default
 * export takes every method.
 */
export const nextjs: HttpDetector = {
  applies: (path) => APP_ROUTE.test(path) || PAGES_API.test(path),
  detect(file) {
    const app = APP_ROUTE.exec(file.path);
    if (app) {
      const folders = (app[1] ?? '').split('/').filter(Boolean);
      if (folders.some((folder) => folder.startsWith('_'))) return;
      const path = `/${folders.filter((folder) => !/^\(.*\)$|^@/.test(folder)).join('/')}`;
      file.facts.symbols.forEach((symbol, index) => {
        if (symbol.parent !== undefined || !symbol.exported || !METHODS.has(symbol.name)) return;
        file.addRoute({
          method: symbol.name,
          path,
          framework: 'nextjs',
          on: '',
          declaration: symbol,
          handlers: [{ symbol: index }],
        });
      });
      return;
    }
    const pages = PAGES_API.exec(file.path);
    if (pages) readApiPage(file, `/${(pages[1] ?? '').replace(/(^|\/)index$/, '')}`);
  },
};

function readApiPage(file: HttpFile, path: string): void {
  const named = file.facts.defaultExport;
  const index =
    named !== undefined
      ? file.facts.symbols.findIndex((symbol) => symbol.name === named && symbol.parent === undefined)
      : -1;
  const handler = file.facts.symbols[index];
  if (handler) {
    file.addRoute({
      method: 'ANY',
      path,
      framework: 'nextjs',
      on: '',
      declaration: handler,
      handlers: [{ symbol: index }],
    });
    return;
  }
  const exported = file.root.namedChildren.find(
    (child) => child.type === 'export_statement' && child.children.some((token) => token.type === 'default'),
  );
  const inline = exported?.namedChildren.find((child) => ECMASCRIPT_FUNCTIONS.has(child.type));
  if (!exported || !inline) return;
  file.addRoute({
    method: 'ANY',
    path,
    framework: 'nextjs',
    on: '',
    declaration: exported,
    body: inline.childForFieldName('body'),
    handlers: [{ inline }],
  });
}
