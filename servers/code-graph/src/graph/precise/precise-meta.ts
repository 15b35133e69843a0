/** Meta keys of precise mode in a root's database. */

/** The digest of the files and project settings the last complete upgrade saw; '' when stale. */
export const PRECISE_DIGEST = 'precise_digest';
/** '1' once a precise run wrote checker edges that a syntactic re-resolve has not replaced. */
export const PRECISE_EDGES = 'precise_edges';
