import {
  budgetFields,
  cursorArg,
  decodeCursor,
  errorMessage,
  maxTokensArg,
  requestKey,
  ToolError,
  takeWithinBudget,
} from '@toolmesh/core';
import { z } from 'zod';
import type { HotItem } from '../hot/hot-memory.js';
import {
  defineTool,
  domainArg,
  hotItemSchema,
  hotLine,
  line,
  memorySchema,
  more,
  READ_ONLY,
  RECOVERABLE_WRITE,
} from './define.js';

export const recordObservation = defineTool({
  name: 'record_observation',
  title: 'Record an observation',
  description:
    'Records a raw observation (something seen or measured, not yet a settled fact) in a domain of long-term memory. search_memory finds observations with kinds ["observation"].',
  capability: 'write',
  input: z.object({
    observation: z.string().trim().min(1).max(8000).describe('What was observed, in markdown.'),
    domain: domainArg.default('general'),
  }),
  output: z.object({ observation: memorySchema }),
  annotations: RECOVERABLE_WRITE,
  actions: ['memoryWrite'],
  workspaceScoped: true,
  render: (out) => `Recorded ${line(out.observation)}`,
  async handle(args, { engine, workspace, identity }) {
    return {
      observation: engine.propose(
        { workspace, identity },
        { kind: 'observation', domain: args.domain, body: args.observation },
      ),
    };
  },
});

type NotesEntry = { text: string } | { hot: HotItem };

/**
 * The notes as budget entries: lines, and long lines in pieces of 32 code points, so every entry
 * fits the smallest budget (even at 6 bytes a code point, as JSON escapes control characters)
 * and a line longer than the largest budget is still read back, page by page.
 */
const NOTES_PIECE = /[^\n]{1,32}\n?|\n/gu;

export const getMyNotes = defineTool({
  name: 'get_my_notes',
  title: 'Read my notes',
  description:
    'Your own notes document in this workspace (with its revision, which update_my_notes needs) and your live hot-memory items, newest first. Budgeted by lines: continue with nextCursor, which reads on in the same revision only (after a change, read again without it).',
  capability: 'read',
  input: z.object({ maxTokens: maxTokensArg, cursor: cursorArg }),
  output: z.object({
    identity: z.string(),
    notes: z.string().describe('The notes, or the part of them this page holds.'),
    revision: z.number().int(),
    updatedAt: z.string().nullable(),
    hot: z.array(hotItemSchema),
    hotError: z.string().optional().describe('Why hot memory could not be read, when it could not.'),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  workspaceScoped: true,
  render: (out) =>
    [
      `Notes of ${out.identity}, revision ${out.revision}${out.updatedAt ? ` (${out.updatedAt})` : ' (none yet)'}:`,
      out.notes,
      ...out.hot.map((item) => `hot ${hotLine(item)}`),
      out.hotError ? `hot memory: ${out.hotError}` : '',
      ...more(out),
    ]
      .filter(Boolean)
      .join('\n'),
  async handle(args, { engine, workspace, identity }) {
    const actor = { workspace, identity };
    const notes = engine.store.notes(actor);
    let hot: HotItem[] = [];
    let hotError: string | undefined;
    try {
      hot = await engine.hot.list(actor);
    } catch (error) {
      hotError = errorMessage(error);
    }
    const entries: NotesEntry[] = [
      ...(notes.body.match(NOTES_PIECE) ?? []).map((text) => ({ text })),
      ...hot.map((item) => ({ hot: item })),
    ];
    // The cursor is bound to the revision: pages of two revisions stitched together, then saved
    // with the newer revision as base, would overwrite the notes with a document nobody wrote.
    const key = requestKey({ ...args, revision: notes.revision });
    let offset: number;
    try {
      offset = decodeCursor(args.cursor, key);
    } catch {
      throw new ToolError(
        `\`cursor\` does not continue your notes at revision ${notes.revision} (they changed since it was issued, or it belongs to another request): call get_my_notes again without cursor.`,
        'bad_cursor',
      );
    }
    const { items, ...budget } = takeWithinBudget(entries, args.maxTokens, { offset, key });
    return {
      identity,
      notes: items.flatMap((entry) => ('text' in entry ? [entry.text] : [])).join(''),
      revision: notes.revision,
      updatedAt: notes.updatedAt,
      hot: items.flatMap((entry) => ('hot' in entry ? [entry.hot] : [])),
      ...(hotError !== undefined && { hotError }),
      ...budget,
    };
  },
});

export const updateMyNotes = defineTool({
  name: 'update_my_notes',
  title: 'Write my notes',
  description:
    'Replaces your whole notes document. base_revision must be the revision get_my_notes gave (0 before your first write): if the notes changed since, the write is refused with the current revision, so a concurrent session is never overwritten.',
  capability: 'write',
  input: z.object({
    notes: z.string().max(200_000).describe('The whole new document, in markdown.'),
    base_revision: z.number().int().min(0).describe('The revision you read.'),
  }),
  output: z.object({ revision: z.number().int(), updatedAt: z.string().nullable(), bytes: z.number().int() }),
  annotations: RECOVERABLE_WRITE,
  actions: ['memoryWrite'],
  workspaceScoped: true,
  render: (out) => `Notes saved: revision ${out.revision}, ${out.bytes} bytes.`,
  async handle(args, { engine, workspace, identity }) {
    const saved = engine.store.updateNotes({ workspace, identity }, args.notes, args.base_revision);
    return { revision: saved.revision, updatedAt: saved.updatedAt, bytes: Buffer.byteLength(saved.body) };
  },
});

export const remember = defineTool({
  name: 'remember',
  title: 'Remember for now',
  description:
    'Adds a note to your hot (working) memory for this session: it expires after ttl_seconds (default and maximum set by the server, UTC, exact to the millisecond) and your oldest item is evicted past the per-identity cap. Remembering the same text again counts a recall instead of adding a copy. consolidate_memory turns durable or repeatedly recalled items into facts.',
  capability: 'write',
  input: z.object({
    text: z.string().trim().min(1).max(4000),
    ttl_seconds: z
      .number()
      .optional()
      .describe('Lifetime in whole seconds (default and maximum: see the server).'),
    durable: z.boolean().default(false).describe('Worth keeping: consolidate_memory makes it a fact.'),
    domain: domainArg.default('general').describe('Where it goes if it becomes a fact. Default "general".'),
  }),
  output: z.object({
    item: hotItemSchema,
    repeated: z.boolean().describe('True when it was already held: its recall count went up instead.'),
    evicted: z.array(z.string()).describe('Your items the cap pushed out, oldest first.'),
    backend: z.enum(['sqlite', 'redis']),
  }),
  annotations: RECOVERABLE_WRITE,
  actions: ['memoryWrite'],
  workspaceScoped: true,
  render: (out) =>
    [
      `${out.repeated ? 'Already held' : 'Remembered'} ${hotLine(out.item)}`,
      out.evicted.length ? `evicted (cap): ${out.evicted.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
  async handle(args, { engine, workspace, identity }) {
    const result = await engine.remember(
      { workspace, identity },
      {
        text: args.text,
        durable: args.durable,
        domain: args.domain,
        ...(args.ttl_seconds !== undefined && { ttlSeconds: args.ttl_seconds }),
      },
    );
    return { ...result, backend: engine.hot.backend };
  },
});
