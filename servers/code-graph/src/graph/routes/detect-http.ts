import type { FileFacts } from '../facts.js';
import type { SyntaxNode, SyntaxTree } from '../syntax.js';
import { django } from './django.js';
import { ecmascriptSyntax } from './ecmascript-syntax.js';
import { expressFastify } from './express-fastify.js';
import { fastapiFlask } from './fastapi-flask.js';
import { fetchAxios } from './fetch-axios.js';
import { gin } from './gin.js';
import { goNetHttp } from './go-net-http.js';
import { goSyntax } from './go-syntax.js';
import { type HttpDetector, HttpFile } from './http-file.js';
import type { HttpSyntax } from './http-syntax.js';
import { nestjs } from './nestjs.js';
import { nextjs } from './nextjs.js';
import { pythonSyntax } from './python-syntax.js';
import { requestsHttpx } from './requests-httpx.js';

interface Family {
  syntax: (root: SyntaxNode) => HttpSyntax;
  /** Routes first: a call read as a route is not read again as a client, and an inline handler's calls belong to its route. */
  detectors: readonly HttpDetector[];
}

const ECMASCRIPT: Family = {
  syntax: ecmascriptSyntax,
  detectors: [nestjs, nextjs, expressFastify, fetchAxios],
};
const FAMILIES = new Map<string, Family>([
  ['typescript', ECMASCRIPT],
  ['tsx', ECMASCRIPT],
  ['javascript', ECMASCRIPT],
  ['python', { syntax: pythonSyntax, detectors: [fastapiFlask, django, requestsHttpx] }],
  ['go', { syntax: goSyntax, detectors: [gin, goNetHttp] }],
]);

/**
 * The route pass: reads HTTP routes, mounts and client calls from a parsed file, separately from
 * the language's extractor, and adds them to the facts it produced (`facts.http`, route symbols,
 * handler calls). Files of other languages, and files that mention no framework, come back as they were.
 */
export function detectHttp(
  language: string,
  path: string,
  tree: SyntaxTree,
  source: string,
  facts: FileFacts,
): FileFacts {
  const family = FAMILIES.get(language);
  const detectors = family?.detectors.filter((detector) => detector.applies(path, source)) ?? [];
  if (!family || detectors.length === 0) return facts;
  const file = new HttpFile(path, tree.rootNode, facts, family.syntax(tree.rootNode));
  for (const detector of detectors) detector.detect(file);
  return file.finish();
}
