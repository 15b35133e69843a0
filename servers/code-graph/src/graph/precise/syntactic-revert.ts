import { linkImplementations } from '../implementations.js';
import { resolveFiles } from '../resolve.js';
import type { RootIndex } from '../root-index.js';
import { linkHttp } from '../routes/link-http.js';
import { PRECISE_DIGEST, PRECISE_EDGES } from './precise-meta.js';
import { CHECKED_LANGUAGES } from './project-markers.js';

/**
 * With precise mode off, a database a precise run wrote to is resolved syntactically again, so
 * that turning the mode off gives the syntactic answers rather than stale checker edges.
 */
export async function revertToSyntactic(index: RootIndex): Promise<void> {
  const store = index.store;
  if (store.meta(PRECISE_EDGES) !== '1') return;
  await index.runExclusive(() =>
    store.transaction(() => {
      const ids = store
        .allFiles()
        .filter((file) => CHECKED_LANGUAGES.has(file.language))
        .map((file) => file.id);
      index.noteResolved(ids, resolveFiles(store, ids, { root: index.root }));
      // Resolving again drops the client → route links of these files; the linker redoes them whole.
      const httpLinked = linkHttp(store, []);
      const relinked = linkImplementations(store);
      store.refreshImportance([...ids, ...relinked, ...httpLinked]);
      store.setMeta(PRECISE_EDGES, '0');
      store.setMeta(PRECISE_DIGEST, '');
    }),
  );
}
