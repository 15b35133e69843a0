import { FileResolver } from './file-resolver.js';
import type { GraphStore } from './graph-store.js';
import { ResolutionContext, type ResolveOptions } from './resolution-context.js';

/** A file whose edges could not be resolved: left without edges, the rest of the batch resolved. */
export interface ResolveFailure {
  fileId: number;
  path: string;
  error: string;
}

/**
 * Rebuilds the edges of `fileIds` in two passes: structure first for all of them, so that
 * calls resolved in the second pass see every class's bases.
 */
export function resolveFiles(
  store: GraphStore,
  fileIds: Iterable<number>,
  options: ResolveOptions,
): ResolveFailure[] {
  const context = new ResolutionContext<FileResolver>(
    store,
    options,
    (host, fileId) => new FileResolver(host, fileId),
  );
  const resolvers: FileResolver[] = [];
  const failed = new Map<number, ResolveFailure>();
  const isolated = (fileId: number, step: () => void) => {
    if (failed.has(fileId)) return;
    try {
      step();
    } catch (error) {
      // One file the resolver cannot handle must not stop the others: it keeps no half-made edges.
      store.clearEdgesOf(fileId);
      failed.set(fileId, { fileId, path: context.pathOf(fileId), error: (error as Error).message });
    }
  };
  for (const fileId of new Set(fileIds)) {
    if (store.fileNodeOf(fileId) === undefined) continue;
    store.clearEdgesOf(fileId);
    isolated(fileId, () => resolvers.push(context.readerFor(fileId)));
  }
  for (const resolver of resolvers) isolated(resolver.fileId, () => resolver.resolveStructure());
  context.forgetBases();
  for (const resolver of resolvers) isolated(resolver.fileId, () => resolver.resolveUses());
  return [...failed.values()];
}
