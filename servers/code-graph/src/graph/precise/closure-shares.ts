import path from 'node:path';
import ts from 'typescript';

/** A split this large is not worth computing: every file's closure is walked (quadratic). */
const MOST_FILES_SPLIT_BY_CLOSURE = 5000;

/**
 * Splits `files` into `count` groups to be checked in separate programs, each program holding
 * only its group's import closures: groups grow along import clusters (see growGroups), so that
 * they share little, and about even in cost, taken as the size of every file a group loads plus
 * that of the files it checks. Any split is correct, since each program pulls in its files'
 * whole closures itself. Each group lists first the files no other group loads.
 */
export function splitByClosure(
  files: readonly string[],
  importsOf: (file: string) => readonly string[],
  sizeOf: (file: string) => number,
  count: number,
): string[][] {
  if (files.length > MOST_FILES_SPLIT_BY_CLOSURE)
    return Array.from({ length: count }, (_, group) => files.filter((_, at) => at % count === group));
  const ids = new Map<string, number>();
  const names: string[] = [];
  const idOf = (file: string): number => {
    let id = ids.get(file);
    if (id === undefined) {
      id = names.length;
      ids.set(file, id);
      names.push(file);
    }
    return id;
  };
  const edges: number[][] = [];
  const edgesOf = (id: number): number[] => {
    let found = edges[id];
    if (!found) {
      found = importsOf(names[id] as string).map(idOf);
      edges[id] = found;
    }
    return found;
  };
  for (const file of files) idOf(file);
  const reached: number[] = [];
  const closures = files.map((file) => {
    const start = idOf(file);
    const members = [start];
    reached[start] = start;
    for (let next = 0; next < members.length; next++)
      for (const imported of edgesOf(members[next] as number))
        if (reached[imported] !== start) {
          reached[imported] = start;
          members.push(imported);
        }
    return members;
  });
  const sizes = names.map(sizeOf);
  return growGroups(files, closures, sizes, names.length, count);
}

/**
 * Each group starts from a seed file whose closure differs most from the others' seeds; then,
 * until every file is placed, the group costing least so far takes the file whose closure adds
 * least to what it loads (ties: the larger file), so that each grows along import clusters.
 */
function growGroups(
  files: readonly string[],
  closures: readonly number[][],
  sizes: readonly number[],
  nodes: number,
  count: number,
): string[][] {
  const containers: number[][] = Array.from({ length: nodes }, () => []);
  closures.forEach((closure, at) => {
    for (const id of closure) containers[id]?.push(at);
  });
  const ownSize = files.map((_, at) => sizes[closures[at]?.[0] as number] ?? 0);
  const groups = Array.from({ length: count }, () => ({
    loaded: new Uint8Array(nodes),
    /** Per file, the size its closure would add to what the group loads. */
    added: closures.map((closure) => closure.reduce((sum, id) => sum + (sizes[id] ?? 0), 0)),
    cost: 0,
    files: [] as number[],
  }));
  const placed = new Uint8Array(files.length);
  const place = (group: (typeof groups)[number], file: number) => {
    placed[file] = 1;
    group.files.push(file);
    group.cost += group.added[file] as number;
    group.cost += ownSize[file] as number;
    for (const id of closures[file] as number[]) {
      if (group.loaded[id]) continue;
      group.loaded[id] = 1;
      for (const container of containers[id] as number[])
        group.added[container] = (group.added[container] as number) - (sizes[id] ?? 0);
    }
  };
  /** The unplaced file scoring least (ties: the larger file, then the earlier one), or -1. */
  const pick = (score: (file: number) => number): number => {
    let best = -1;
    for (let file = 0; file < files.length; file++) {
      if (placed[file]) continue;
      const difference = best < 0 ? -1 : score(file) - score(best);
      if (difference < 0 || (difference === 0 && (ownSize[file] as number) > (ownSize[best] as number)))
        best = file;
    }
    return best;
  };
  const [first, second] = groups;
  if (!first || !second) return [files.slice()];
  const [seedA, seedB] = mostApartPair(closures, sizes, nodes);
  place(first, seedA);
  if (seedB !== seedA) place(second, seedB);
  for (const group of groups.slice(2)) {
    const earlier = groups.filter((other) => other.files.length > 0);
    const seed = pick((file) => -Math.min(...earlier.map((other) => other.added[file] as number)));
    if (seed >= 0) place(group, seed);
  }
  for (;;) {
    const lightest = groups.reduce((least, group) => (group.cost < least.cost ? group : least));
    const others = groups.filter((group) => group !== lightest);
    // What the file adds here beyond what it would add to the group it fits best otherwise.
    const file = pick(
      (candidate) =>
        (lightest.added[candidate] as number) -
        Math.min(...others.map((other) => other.added[candidate] as number)),
    );
    if (file < 0) break;
    place(lightest, file);
  }
  // Files another group loads too come last, where that group's worker may take them (see Share).
  const loadedElsewhere = (group: (typeof groups)[number], file: number) =>
    groups.some((other) => other !== group && other.loaded[closures[file]?.[0] as number]);
  return groups.map((group) => {
    const inOrder = group.files.sort((a, b) => a - b);
    return [
      ...inOrder.filter((file) => !loadedElsewhere(group, file)),
      ...inOrder.filter((file) => loadedElsewhere(group, file)),
    ].map((at) => files[at] as string);
  });
}

/** Seed candidates tried: the files with the largest closures. */
const SEED_CANDIDATES = 16;

/**
 * Two files each of whose closures loads much the other's does not: of the largest closures,
 * the one and the partner maximizing the smaller of the two differences. Two seeds of the same
 * import cluster, or a seed importing everything, would make the groups share most of their work.
 */
function mostApartPair(
  closures: readonly number[][],
  sizes: readonly number[],
  nodes: number,
): [number, number] {
  const weight = (members: readonly number[], skip: Uint8Array) =>
    members.reduce((sum, id) => sum + (skip[id] ? 0 : (sizes[id] ?? 0)), 0);
  const none = new Uint8Array(nodes);
  const totals = closures.map((closure) => weight(closure, none));
  const candidates = closures
    .map((_, at) => at)
    .sort((a, b) => (totals[b] as number) - (totals[a] as number) || a - b)
    .slice(0, SEED_CANDIDATES);
  let best: [number, number] = [candidates[0] ?? 0, candidates[0] ?? 0];
  let bestApart = -1;
  for (const candidate of candidates) {
    const mask = new Uint8Array(nodes);
    for (const id of closures[candidate] as number[]) mask[id] = 1;
    closures.forEach((closure, other) => {
      const outside = weight(closure, mask);
      const shared = (totals[other] as number) - outside;
      const apart = Math.min(outside, (totals[candidate] as number) - shared);
      if (apart > bestApart) {
        bestApart = apart;
        best = [candidate, other];
      }
    });
  }
  return best;
}

/**
 * Whether a file may add to the global scope or to other modules (a script, `declare global`,
 * `declare module 'x'`), so that a program without it could type its importers differently.
 */
export function mayDeclareGlobals(fileName: string, text: string): boolean {
  // Parsed without the program's module detection, a file is a script unless it has an import or
  // export: at worst a module is taken for a script and loaded for nothing.
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ESNext, false);
  return (
    !ts.isExternalModule(source) ||
    source.statements.some(
      (statement) =>
        ts.isModuleDeclaration(statement) &&
        (ts.isStringLiteral(statement.name) || statement.name.text === 'global'),
    )
  );
}

/**
 * The root-relative files under `root`, outside node_modules, that a file imports or references,
 * found by a scan without a parse: packages are left out of the split, as every program loads
 * about the same of them.
 */
export function importedFiles(
  root: string,
  file: string,
  text: string,
  options: ts.CompilerOptions,
  host: ts.ModuleResolutionHost,
  cache: ts.ModuleResolutionCache,
): string[] {
  const containing = path.join(root, file);
  const scanned = ts.preProcessFile(text, true, true);
  const found: string[] = [];
  const add = (absolute: string) => {
    const relative = path.relative(root, absolute);
    if (relative.startsWith('..') || path.isAbsolute(relative) || relative.includes('node_modules')) return;
    found.push(relative.split(path.sep).join('/'));
  };
  for (const imported of scanned.importedFiles) {
    const resolved = ts.resolveModuleName(imported.fileName, containing, options, host, cache).resolvedModule;
    if (resolved && !resolved.isExternalLibraryImport) add(resolved.resolvedFileName);
  }
  for (const referenced of scanned.referencedFiles)
    add(path.resolve(path.dirname(containing), referenced.fileName));
  return found;
}
