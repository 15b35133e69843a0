import { cursorArg, maxTokensArg, ToolError, withContent } from '@toolmesh/core';
import { z } from 'zod';
import type { BrowserAnswer, BrowserMachine } from '../rigs/browser/browser-machine.js';
import { OUTLINE_ACTIONS, type OutlineBrowser } from '../rigs/browser/outline-browser.js';
import {
  callerOf,
  defineTool,
  framed,
  renderUse,
  rigIdArg,
  USE_ANNOTATIONS,
  type UseOutput,
  useOutput,
} from './define.js';

const ACTIONS = [
  'navigate',
  'back',
  'snapshot',
  'click',
  'fill',
  'select',
  'hover',
  'press',
  'drag',
  'upload',
  'dialog',
  'tabs',
  'console',
  'network',
  'extract',
  'clipboard',
  'screenshot',
] as const;

/** Snapshots are the big answers, so they get a larger default than core's, still under ~8,000 tokens. */
const SNAPSHOT_BUDGET = 24_000;

const input = z.object({
  action: z.enum(ACTIONS),
  engine: z
    .enum(['chromium', 'firefox', 'webkit'])
    .default('chromium')
    .describe('chromium (every action), firefox or webkit (navigate, snapshot, click).'),
  rig_id: rigIdArg,
  url: z.string().max(8192).optional().describe('navigate: an http or https URL.'),
  ref: z
    .string()
    .max(20)
    .optional()
    .describe('click, fill, select, hover, press, drag, upload: a ref (e5) from the last snapshot.'),
  target_ref: z.string().max(20).optional().describe('drag: the ref to drop on.'),
  text: z
    .string()
    .max(100_000)
    .optional()
    .describe('fill: the text; clipboard: text to write (leave out to read).'),
  values: z.array(z.string().max(1000)).max(100).optional().describe('select: option values or labels.'),
  key: z.string().max(64).optional().describe('press: a key such as Enter, Tab or Control+A.'),
  button: z.enum(['left', 'right', 'middle']).optional().describe('click: the mouse button (default left).'),
  double: z.boolean().optional().describe('click: a double click.'),
  paths: z
    .array(z.string().max(4096))
    .min(1)
    .max(20)
    .optional()
    .describe('upload: files under the server’s roots.'),
  accept: z.boolean().optional().describe('dialog: accept (true) or dismiss (false) the open dialog.'),
  prompt_text: z.string().max(10_000).optional().describe('dialog: the answer to a prompt.'),
  op: z.enum(['list', 'select', 'close']).optional().describe('tabs: list (default), select or close `tab`.'),
  tab: z.string().max(20).optional().describe('tabs: a tab id (t2) from the list.'),
  what: z
    .enum(['text', 'accessibility', 'console'])
    .optional()
    .describe('extract: DOM text (default), the accessibility tree, or the console.'),
  scope: z.string().max(1000).optional().describe('snapshot, extract: a ref or CSS selector to look inside.'),
  depth: z.number().int().min(1).max(100).optional().describe('snapshot: how many levels deep.'),
  find: z
    .string()
    .max(200)
    .optional()
    .describe('snapshot: keep only lines mentioning this (and their ancestors).'),
  maxTokens: maxTokensArg
    .unwrap()
    .optional()
    .describe(
      `snapshot and extract: output budget in UTF-8 bytes (default ${SNAPSHOT_BUDGET} for snapshots, core's default otherwise).`,
    ),
  cursor: cursorArg,
});

type Input = z.infer<typeof input>;

function need<K extends keyof Input>(args: Input, field: K): NonNullable<Input[K]> {
  const value = args[field];
  if (value === undefined) throw new ToolError(`\`${String(field)}\` is required for action ${args.action}.`);
  return value as NonNullable<Input[K]>;
}

/** http and https only: file:, data:, javascript: and browser-internal pages are refused. */
function webUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError(`\`url\` ${JSON.stringify(text)} is not a URL: give an absolute http or https URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(
      `${url.protocol} URLs are refused: rigs opens http and https pages only (no file: or browser-internal pages).`,
    );
  }
  return url.href;
}

/** Firefox and WebKit do navigate, snapshot and click in this build. */
function performOutline(machine: OutlineBrowser, args: Input): Promise<BrowserAnswer> {
  switch (args.action) {
    case 'navigate':
      return machine.navigate(webUrl(need(args, 'url')));
    case 'snapshot':
      return machine.takeSnapshot({
        ...(args.scope !== undefined && { scope: args.scope }),
        ...(args.depth !== undefined && { depth: args.depth }),
        ...(args.find !== undefined && { find: args.find }),
        maxTokens: args.maxTokens ?? SNAPSHOT_BUDGET,
        cursor: args.cursor,
      });
    case 'click':
      return machine.click(need(args, 'ref'));
    default:
      throw new ToolError(
        `engine ${args.engine} does ${OUTLINE_ACTIONS.join(', ')} in this build, not ${args.action}: use engine chromium for it.`,
      );
  }
}

function perform(machine: BrowserMachine, args: Input, uploads: () => string[]): Promise<BrowserAnswer> {
  const paging = (budget: number) => ({ maxTokens: args.maxTokens ?? budget, cursor: args.cursor });
  switch (args.action) {
    case 'navigate':
      return machine.navigate(webUrl(need(args, 'url')));
    case 'back':
      return machine.back();
    case 'snapshot':
      return machine.takeSnapshot({
        ...(args.scope !== undefined && { scope: args.scope }),
        ...(args.depth !== undefined && { depth: args.depth }),
        ...(args.find !== undefined && { find: args.find }),
        ...paging(SNAPSHOT_BUDGET),
      });
    case 'click':
      return machine.click(need(args, 'ref'), args.button, args.double);
    case 'fill':
      return machine.fill(need(args, 'ref'), need(args, 'text'));
    case 'select':
      return machine.select(need(args, 'ref'), need(args, 'values'));
    case 'hover':
      return machine.hover(need(args, 'ref'));
    case 'press':
      return machine.press(need(args, 'key'), args.ref);
    case 'drag':
      return machine.drag(need(args, 'ref'), need(args, 'target_ref'));
    case 'upload':
      return machine.upload(need(args, 'ref'), uploads());
    case 'dialog':
      return machine.answerDialog(need(args, 'accept'), args.prompt_text);
    case 'tabs':
      return machine.tabsAction(args.op ?? 'list', args.tab);
    case 'console':
    case 'network':
      return machine.drain(args.action);
    case 'extract':
      if (args.what === 'accessibility') {
        return machine.takeSnapshot({
          ...(args.scope !== undefined && { scope: args.scope }),
          ...paging(SNAPSHOT_BUDGET),
        });
      }
      if (args.what === 'console') return machine.drain('console');
      return machine.extractText(args.scope, paging(4000));
    case 'clipboard':
      return machine.clipboard(args.text);
    case 'screenshot':
      return machine.screenshot();
  }
}

export const browserUse = defineTool({
  name: 'browser_use',
  title: 'Drive a headless browser',
  description:
    'Drive a disposable headless browser (one per conversation, reused across calls, closed when idle). Actions: navigate, back, snapshot (accessibility tree with refs like e5; scope, depth, find and a cursor keep it small), click, fill, select, hover, press, drag, upload (files under the roots), dialog, tabs, console and network (since the last call), extract, clipboard, screenshot (one JPEG). Refs come from the last snapshot; a stale one fails at once. Egress goes through a proxy that refuses private addresses unless the server opens them. Page content comes back framed as untrusted.',
  capability: 'browser',
  input,
  output: useOutput,
  annotations: USE_ANNOTATIONS,
  actions: ['enclosureControl', 'networkEgress', 'processSpawn'],
  workspaceScoped: true,
  render: renderUse,
  async handle(args, context) {
    const rigs = context.engine.rigs;
    let rigId = '';
    rigs.ready('browser', args.engine);
    const drive = async (
      machine: BrowserMachine | OutlineBrowser,
      id: string,
      run: () => Promise<BrowserAnswer>,
    ) => {
      rigId = id;
      try {
        const done = await run();
        // A refusal names the host a page asked for, and a page picks its hosts: framed like the page.
        const egress = machine.egressRefusals().map((line) => `egress: ${line}`);
        return {
          ...done,
          notes: [
            ...done.notes,
            ...(egress.length > 0 ? [framed(egress.join('\n'), `egress proxy of browser rig ${id}`)] : []),
          ],
        };
      } catch (error) {
        // A refused tunnel (https) reaches the page only as a connection error: say why.
        const refusals = machine.egressRefusals().filter((line) => !(error as Error).message.includes(line));
        if (error instanceof ToolError && refusals.length > 0) {
          throw new ToolError(`${error.message} (${refusals.join(' ')})`);
        }
        throw error;
      }
    };
    const answer =
      args.engine !== 'chromium'
        ? await rigs.outlineBrowser(callerOf(context), args.engine, args.rig_id, (machine, id) =>
            drive(machine, id, () => performOutline(machine, args)),
          )
        : await rigs.browser(callerOf(context), args.rig_id, (machine, id) =>
            drive(machine, id, () => perform(machine, args, () => rigs.uploadPaths(need(args, 'paths')))),
          );
    const output: UseOutput = {
      rig_id: rigId,
      tab: answer.tab,
      notes: answer.notes,
      content: framed(answer.body, `browser rig ${rigId} tab ${answer.tab}`),
      ...answer.page,
    };
    return answer.image
      ? withContent(output, [
          { type: 'image', data: answer.image.toString('base64'), mimeType: 'image/jpeg' },
        ])
      : output;
  },
});
