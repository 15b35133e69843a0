import { budgetFields, cursorArg, maxTokensArg } from '@toolmesh/core';
import { z } from 'zod';
import {
  defineTool,
  feedLine,
  feedSchema,
  feedView,
  fromFeeds,
  intervalArg,
  LOCAL_STATE_ACTIONS,
  LOCAL_WRITE,
  more,
  READ_ONLY,
} from './define.js';
import { textWindow } from './text-window.js';

export const importOpml = defineTool({
  name: 'import_opml',
  title: 'Import an OPML subscription list',
  description:
    'Subscribes to every feed of an OPML document (folders flattened) without fetching them: refresh_feeds or the schedule fetches them next. Feeds already subscribed and addresses that are not http(s) are reported, not added.',
  capability: 'write',
  input: z.object({
    opml: z.string().min(1).max(2_000_000).describe('The OPML document, as XML text.'),
    interval_minutes: intervalArg.optional(),
  }),
  output: z.object({
    added: z.array(feedSchema),
    alreadySubscribed: z.array(z.string()),
    invalid: z.array(z.object({ url: z.string(), reason: z.string() })),
  }),
  annotations: LOCAL_WRITE,
  actions: LOCAL_STATE_ACTIONS,
  render: (out) =>
    [
      `${out.added.length} added, ${out.alreadySubscribed.length} already subscribed, ${out.invalid.length} invalid`,
      ...fromFeeds([...out.added.map(feedLine), ...out.invalid.map((i) => `invalid ${i.url}: ${i.reason}`)]),
    ].join('\n'),
  async handle(args, { engine }) {
    const result = engine.importOpml(args.opml, args.interval_minutes);
    return { added: result.added.map(feedView), alreadySubscribed: result.existing, invalid: result.invalid };
  },
});

export const exportOpml = defineTool({
  name: 'export_opml',
  title: 'Export the subscriptions as OPML',
  description:
    'Every subscribed feed as an OPML 2.0 document that other feed readers import. A long document comes in parts within maxTokens, each cut at a line or a space when one is near: continue with nextCursor and join the parts as they are.',
  capability: 'read',
  input: z.object({ maxTokens: maxTokensArg, cursor: cursorArg }),
  output: z.object({
    opml: z.string().describe('The document, or the part of it that fits.'),
    opmlChars: z.number().int().describe('Length of the whole document, in characters.'),
    feeds: z.number().int(),
    ...budgetFields,
  }),
  annotations: READ_ONLY,
  actions: ['read'],
  render: (out) => [out.opml, ...more(out)].join('\n'),
  async handle(args, { engine }) {
    const { opml, feeds, madeOf } = engine.exportOpml();
    const changed =
      'the subscriptions changed since the part that cursor continues: call again without cursor to export them afresh.';
    return textWindow(args, { text: opml, madeOf, changed }, (part) => ({
      opml: part,
      opmlChars: opml.length,
      feeds,
    }));
  },
});
