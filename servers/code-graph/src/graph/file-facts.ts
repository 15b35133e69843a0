import type { FileFacts } from './facts.js';
import type { LanguageSpec } from './language-spec.js';
import { detectHttp } from './routes/detect-http.js';
import { parserFor, withTree } from './syntax.js';

/**
 * What one file says about itself: its tree read by its language's extractor, then its HTTP
 * routes and client calls. The same in the indexing thread and in a parse worker.
 */
export async function readFileFacts(
  language: LanguageSpec,
  relative: string,
  source: string,
): Promise<FileFacts> {
  const [parser, extract] = await Promise.all([parserFor(language), language.extractor()]);
  return withTree(parser, source, (tree) =>
    detectHttp(language.id, relative, tree, source, extract(tree, source)),
  );
}
