import { z } from 'zod';
import { EDGE_KINDS } from '../graph/facts.js';
import { languageSupport } from '../graph/languages.js';
import { PRECISE_STATES, type PreciseUpgrader } from '../graph/precise/precise-upgrader.js';
import type { IndexProgress } from '../graph/root-index.js';
import { httpSummary } from '../graph/routes/link-http.js';
import { defineTool, READ_ONLY } from './define.js';

const runView = z.object({
  parsed: z.number().int(),
  unchanged: z.number().int().describe('Files skipped because their content hash had not changed.'),
  removed: z.number().int(),
  milliseconds: z.number().int(),
});

const preciseStatus = z
  .object({
    state: z
      .enum(PRECISE_STATES)
      .describe(
        'waiting for the first index, off, building a program, checking files, ready, or failed (syntactic edges kept).',
      ),
    reason: z.string().optional().describe('Why precise mode is off for this root.'),
    progress: z.object({ done: z.number().int(), total: z.number().int() }),
    partition: z.string().optional().describe('The tsconfig.json (or inferred program) being checked.'),
    lastRun: z
      .object({
        files: z.number().int(),
        partitions: z.number().int(),
        workers: z.number().int().describe('Checker workers the run used: two for a large first upgrade.'),
        milliseconds: z.number().int(),
        peakRssBytes: z.number().int().describe('Peak resident memory of the process, checker included.'),
      })
      .optional(),
    lastError: z.string().optional(),
  })
  .describe('Precise mode: TypeScript and JavaScript edges upgraded with the TypeScript checker.');

/** Failed files listed by index_status; the count covers all of them. */
const FAILED_FILES_SHOWN = 20;

/** The phase as a person reads it: `ready` only when every file made it into the graph. */
function phaseText(root: { phase: string; complete: boolean; failedFileCount: number }): string {
  const unfinished = root.complete ? '' : ' (first index not finished)';
  const failed =
    root.failedFileCount > 0
      ? ` except ${root.failedFileCount} file${root.failedFileCount === 1 ? '' : 's'} that could not be indexed`
      : '';
  return `${root.phase}${failed}${unfinished}`;
}

/** While a root is being indexed or upgraded, its counts may be this old (exact once it is done). */
const BUILDING_COUNTS_MAX_AGE_MS = 1000;

function isBuilding(progress: IndexProgress, precise: PreciseUpgrader | undefined): boolean {
  const indexing = progress.phase !== 'ready' && progress.phase !== 'failed' && progress.phase !== 'idle';
  const upgrading = precise?.progress.state === 'building' || precise?.progress.state === 'checking';
  return indexing || progress.pending > 0 || upgrading;
}

function preciseView(precise: PreciseUpgrader | undefined): z.infer<typeof preciseStatus> {
  if (!precise) return { state: 'off', reason: 'turned off (--no-precise)', progress: { done: 0, total: 0 } };
  const { state, reason, done, total, partition, lastRun, lastError } = precise.progress;
  return {
    state,
    progress: { done, total },
    ...(reason && { reason }),
    ...(partition && { partition }),
    ...(lastRun && { lastRun }),
    ...(lastError && { lastError }),
  };
}

const httpStatus = z
  .object({
    routes: z.number().int(),
    routesByFramework: z.record(z.string(), z.number().int()),
    clients: z.number().int().describe('HTTP client call sites: fetch, axios, requests, httpx, net/http.'),
    linkedClients: z.number().int().describe('Client call sites linked to at least one route.'),
    ambiguousClients: z
      .number()
      .int()
      .describe('Clients matching several routes equally well, linked to each at a split confidence.'),
    links: z.number().int().describe('Client → route CALLS edges (resolution http-route).'),
    unmatched: z
      .array(
        z.object({
          path: z.string(),
          line: z.number().int(),
          method: z.string().optional(),
          url: z.string(),
        }),
      )
      .describe('The first clients that hit no indexed route, or whose URL the code computes.'),
  })
  .describe('HTTP routes as nodes, and the client call sites linked to them across services.');

const rootStatus = z.object({
  root: z.string(),
  database: z.string(),
  phase: z.enum(['idle', 'scanning', 'parsing', 'resolving', 'ready', 'failed']),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  complete: z.boolean(),
  pendingChanges: z.number().int(),
  watching: z.enum(['events', 'polling', 'off']),
  lastUpdate: z.string().optional(),
  lastRun: runView.optional(),
  lastError: z.string().optional(),
  failedFileCount: z
    .number()
    .int()
    .describe(
      'Files the index could not take in; they are tried again when they change and at every full index.',
    ),
  failedFiles: z
    .array(z.object({ path: z.string(), stage: z.enum(['parse', 'resolve']), error: z.string() }))
    .describe(
      `The first ${FAILED_FILES_SHOWN} of them: parse (the file is left out) or resolve (its symbols are kept, without edges).`,
    ),
  files: z.number().int(),
  languages: z.array(
    z.object({
      language: z.string(),
      files: z.number().int(),
      lines: z.number().int(),
      symbols: z.number().int(),
      edges: z.number().int(),
    }),
  ),
  symbolsByKind: z.record(z.string(), z.number().int()),
  edgesByKind: z.record(z.enum(EDGE_KINDS), z.number().int()),
  calls: z.number().int(),
  unresolvedCalls: z
    .number()
    .int()
    .describe(
      'Callsites bound to no indexed symbol: receivers of unknown type, globals such as console or Math.',
    ),
  externalCalls: z
    .number()
    .int()
    .describe('Callsites into packages imported from outside the root, e.g. lodash.'),
  unresolvedCallRatio: z.number().describe('unresolvedCalls / calls.'),
  precise: preciseStatus,
  edgesByResolution: z
    .record(z.string(), z.record(z.string(), z.number().int()))
    .describe('Edges (CONTAINS aside) by how they were resolved, then by kind: checker → CALLS → 812.'),
  http: httpStatus,
});

export const indexStatus = defineTool({
  name: 'index_status',
  title: 'Code index status',
  description:
    'What is indexed per root: files, symbols and edges by kind and language, indexing phase and progress, last update, pending changes, whether files are watched, the share of calls left unresolved, the precise (TypeScript checker) phase and progress, how many edges each resolution produced, and the HTTP routes found with how many client call sites link to them. While a root is being indexed or upgraded, its counts may be up to a second old; they are exact once it is done.',
  capability: 'read',
  input: z.object({}),
  output: z.object({
    roots: z.array(rootStatus),
    languages: z
      .array(z.object({ language: z.string(), extensions: z.array(z.string()), installed: z.boolean() }))
      .describe(
        'Every language the server reads, and whether its grammar can be loaded here (the package ships them all); the files of a language whose grammar is missing are not indexed.',
      ),
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    output.roots
      .map((root) =>
        [
          `${root.root}: ${phaseText(root)}, ${root.files} files, ${root.calls} calls (${Math.round(root.unresolvedCallRatio * 100)}% unresolved, ${root.externalCalls} into outside packages), ${root.pendingChanges} pending, watching: ${root.watching}`,
          ...(root.lastError ? [`  error: ${root.lastError}`] : []),
          ...root.failedFiles.map(
            (failure) => `  not indexed (${failure.stage}): ${failure.path}: ${failure.error}`,
          ),
          ...(root.failedFileCount > root.failedFiles.length
            ? [`  … and ${root.failedFileCount - root.failedFiles.length} more not indexed`]
            : []),
          `  languages: ${root.languages.map((language) => `${language.language} ${language.files} files / ${language.symbols} symbols`).join(', ') || 'none'}`,
          `  symbols: ${
            Object.entries(root.symbolsByKind)
              .map(([kind, count]) => `${kind} ${count}`)
              .join(', ') || 'none'
          }`,
          `  edges: ${Object.entries(root.edgesByKind)
            .map(([kind, count]) => `${kind} ${count}`)
            .join(', ')}`,
          `  precise: ${root.precise.state}${root.precise.reason ? ` (${root.precise.reason})` : ''}${root.precise.progress.total ? ` ${root.precise.progress.done}/${root.precise.progress.total} files` : ''}${root.precise.lastRun ? `, last run ${root.precise.lastRun.files} files in ${root.precise.lastRun.milliseconds} ms, peak RSS ${Math.round(root.precise.lastRun.peakRssBytes / 2 ** 20)} MiB` : ''}${root.precise.lastError ? `, error: ${root.precise.lastError}` : ''}`,
          `  calls by resolution: ${
            Object.entries(root.edgesByResolution)
              .filter(([, kinds]) => kinds.CALLS)
              .map(([resolution, kinds]) => `${resolution} ${kinds.CALLS}`)
              .join(', ') || 'none'
          }`,
          `  http: routes: ${root.http.routes}${
            Object.keys(root.http.routesByFramework).length
              ? ` (${Object.entries(root.http.routesByFramework)
                  .map(([framework, count]) => `${framework} ${count}`)
                  .join(', ')})`
              : ''
          }, clients: ${root.http.clients} (${root.http.linkedClients} linked, ${root.http.ambiguousClients} ambiguous, ${root.http.clients - root.http.linkedClients} hitting no route)`,
          `  last update: ${root.lastUpdate ?? 'never'}; database: ${root.database}`,
        ].join('\n'),
      )
      .concat(
        `languages read: ${output.languages
          .filter((entry) => entry.installed)
          .map((entry) => entry.language)
          .join(', ')}${
          output.languages.some((entry) => !entry.installed)
            ? `; not installed: ${output.languages
                .filter((entry) => !entry.installed)
                .map((entry) => entry.language)
                .join(', ')}`
            : ''
        }`,
      )
      .join('\n'),
  async handle(_args, { engine }) {
    return {
      roots: engine.roots.map((entry) => {
        const { progress } = entry.index;
        const failed = entry.index.failedFiles();
        const { edgesByResolution, ...counts } = entry.queries.status(
          isBuilding(entry.index.progress, entry.precise) ? BUILDING_COUNTS_MAX_AGE_MS : 0,
        );
        return {
          root: entry.root,
          database: entry.index.store.db.name,
          phase: progress.phase,
          progress: { done: progress.done, total: progress.total },
          complete: progress.complete,
          pendingChanges: progress.pending,
          watching: entry.watcher?.mode ?? ('off' as const),
          ...(progress.lastUpdate && { lastUpdate: progress.lastUpdate }),
          ...(progress.lastRun && { lastRun: progress.lastRun }),
          ...(progress.lastError && { lastError: progress.lastError }),
          failedFileCount: failed.length,
          failedFiles: failed.slice(0, FAILED_FILES_SHOWN),
          ...counts,
          unresolvedCallRatio:
            counts.calls > 0 ? Math.round((counts.unresolvedCalls / counts.calls) * 1000) / 1000 : 0,
          precise: preciseView(entry.precise),
          edgesByResolution,
          http: httpSummary(entry.index.store),
        };
      }),
      languages: languageSupport().map((entry) => ({ ...entry, extensions: [...entry.extensions] })),
    };
  },
});

export const reindex = defineTool({
  name: 'reindex',
  title: 'Re-index the roots',
  description:
    'Brings the graph of every root up to date now and waits for it: new and changed files (by content hash) are parsed, deleted ones dropped, and the files depending on them re-resolved. Unchanged files are not parsed again. Called while the first index runs, it waits for that too. Sends progress notifications when asked, the first index included. Needed only when the file watcher is off or missed something.',
  capability: 'read',
  input: z.object({}),
  output: z.object({ roots: z.array(z.object({ root: z.string(), run: runView })) }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    output.roots
      .map(
        ({ root, run }) =>
          `${root}: ${run.parsed} parsed, ${run.unchanged} unchanged, ${run.removed} removed in ${run.milliseconds} ms`,
      )
      .join('\n'),
  async handle(_args, { engine, progress }) {
    // It waits behind whatever runs first (the first index, at start), whose progress it reports
    // too. Progress must only grow: files of runs that ended, and of every root, add up.
    const counted = engine.roots.map(() => ({ ended: 0, done: 0, total: 0 }));
    let sent = 0;
    const unsubscribe = engine.roots.map((entry, position) =>
      entry.index.onProgress((state) => {
        const count = counted[position] as (typeof counted)[number];
        if (state.done < count.done) count.ended += count.total;
        count.done = state.done;
        count.total = state.total;
        const done = counted.reduce((sum, each) => sum + each.ended + each.done, 0);
        const total = counted.reduce((sum, each) => sum + each.ended + each.total, 0);
        if (done <= sent) return;
        sent = done;
        void progress(
          done,
          total || undefined,
          `${entry.root}: ${state.phase} ${state.done}/${state.total} files`,
        );
      }),
    );
    try {
      const results = await engine.reindex();
      return {
        roots: results.map((result, position) => ({
          root: engine.roots[position]?.root ?? '',
          run: result.lastRun ?? { parsed: 0, unchanged: 0, removed: 0, milliseconds: 0 },
        })),
      };
    } finally {
      for (const stop of unsubscribe) stop();
    }
  },
});
