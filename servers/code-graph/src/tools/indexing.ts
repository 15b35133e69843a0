import { z } from 'zod';
import { EDGE_KINDS } from '../graph/facts.js';
import { defineTool, READ_ONLY } from './define.js';

const runView = z.object({
  parsed: z.number().int(),
  unchanged: z.number().int().describe('Files skipped because their content hash had not changed.'),
  removed: z.number().int(),
  milliseconds: z.number().int(),
});

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
});

export const indexStatus = defineTool({
  name: 'index_status',
  title: 'Code index status',
  description:
    'What is indexed per root: files, symbols and edges by kind and language, indexing phase and progress, last update, pending changes, whether files are watched, and the share of calls left unresolved.',
  capability: 'read',
  input: z.object({}),
  output: z.object({ roots: z.array(rootStatus) }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (output) =>
    output.roots
      .map((root) =>
        [
          `${root.root}: ${root.phase}${root.complete ? '' : ' (first index not finished)'}, ${root.files} files, ${root.calls} calls (${Math.round(root.unresolvedCallRatio * 100)}% unresolved, ${root.externalCalls} into outside packages), ${root.pendingChanges} pending, watching: ${root.watching}`,
          `  languages: ${root.languages.map((language) => `${language.language} ${language.files} files / ${language.symbols} symbols`).join(', ') || 'none'}`,
          `  symbols: ${
            Object.entries(root.symbolsByKind)
              .map(([kind, count]) => `${kind} ${count}`)
              .join(', ') || 'none'
          }`,
          `  edges: ${Object.entries(root.edgesByKind)
            .map(([kind, count]) => `${kind} ${count}`)
            .join(', ')}`,
          `  last update: ${root.lastUpdate ?? 'never'}; database: ${root.database}`,
        ].join('\n'),
      )
      .join('\n'),
  async handle(_args, { engine }) {
    return {
      roots: engine.roots.map((entry) => {
        const { progress } = entry.index;
        const counts = entry.queries.status();
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
          ...counts,
          unresolvedCallRatio:
            counts.calls > 0 ? Math.round((counts.unresolvedCalls / counts.calls) * 1000) / 1000 : 0,
        };
      }),
    };
  },
});

export const reindex = defineTool({
  name: 'reindex',
  title: 'Re-index the roots',
  description:
    'Brings the graph of every root up to date now and waits for it: new and changed files (by content hash) are parsed, deleted ones dropped, and the files depending on them re-resolved. Unchanged files are not parsed again. Sends progress notifications when asked. Needed only when the file watcher is off or missed something.',
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
    const unsubscribe = engine.roots.map((entry) =>
      entry.index.onProgress((state) => {
        void progress(state.done, state.total || undefined, `${entry.root}: ${state.phase}`);
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
