import { createRequire } from 'node:module';
import type * as Feedsmith from 'feedsmith';
import type * as Htmlparser2 from 'htmlparser2';

const require = createRequire(import.meta.url);

/**
 * A parser package loaded the first time it is needed rather than at start-up: an idle reader
 * parses nothing. Its CommonJS build, since `require` is synchronous and every caller here is.
 */
function whenUsed<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(name) as T;
    return loaded;
  };
}

/** feedsmith, for the first feed or OPML file read: its parsers are about 7 MiB of an idle server. */
export const feedsmith = whenUsed<typeof Feedsmith>('feedsmith');

/**
 * htmlparser2, for the first article stored or page searched for feeds: its entry point loads
 * the DOM modules and entity tables beside the streaming parser used here.
 */
export const htmlparser2 = whenUsed<typeof Htmlparser2>('htmlparser2');
