import { createRequire } from 'node:module';
import type * as Feedsmith from 'feedsmith';

let loaded: typeof Feedsmith | undefined;

/**
 * feedsmith, loaded with the first feed or OPML file read rather than at start-up: its parsers
 * are about 7 MiB of an idle server's resident memory. Its CommonJS build, since `require` is
 * synchronous and every caller here is.
 */
export function feedsmith(): typeof Feedsmith {
  loaded ??= createRequire(import.meta.url)('feedsmith') as typeof Feedsmith;
  return loaded;
}
