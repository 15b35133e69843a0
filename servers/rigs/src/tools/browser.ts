import { cursorArg, maxTokensArg, ToolError } from '@toolmesh/core';
import { z } from 'zod';
import type { BrowserAnswer, BrowserDriver } from '../rigs/browser/browser-driver.js';
import {
  boundedString,
  browserOutput,
  callerOf,
  defineTool,
  framed,
  need,
  onRig,
  renderUse,
  rigIdArg,
  USE_ANNOTATIONS,
  useResult,
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
const SNAPSHOT_BUDGET = 21_000;

const short = boundedString(1000);

const input = z.object({
  action: z.enum(ACTIONS),
  engine: z
    .enum(['chromium', 'firefox', 'webkit'])
    .default('chromium')
    .describe('firefox, webkit: upload through file inputs only.'),
  rig_id: rigIdArg,
  url: boundedString(8192).optional().describe('navigate: http(s) URL.'),
  ref: short.optional().describe('A ref (e5) from the last snapshot.'),
  target_ref: short.optional().describe('drag: drop target ref.'),
  text: boundedString(100_000)
    .optional()
    .describe('fill: text; dialog: prompt answer; clipboard: text to write, none to read.'),
  values: z.array(short).optional().describe('select: option values or labels.'),
  key: short.optional().describe('press: e.g. Enter, Control+A.'),
  button: z.enum(['left', 'right', 'middle']).optional(),
  double: z.boolean().optional(),
  paths: z.array(boundedString(4096)).optional().describe('upload: files under the roots.'),
  accept: z.boolean().optional().describe('dialog: accept or dismiss.'),
  op: z.enum(['list', 'select', 'close']).optional().describe('tabs (default list).'),
  tab: short.optional().describe('tabs: t2.'),
  what: z.enum(['text', 'accessibility', 'console']).optional().describe('extract (default text).'),
  scope: short.optional().describe('snapshot, extract: a ref or CSS selector.'),
  depth: z.number().int().min(1).max(100).optional().describe('snapshot: levels.'),
  find: short.optional().describe('snapshot: keep lines matching this.'),
  maxTokens: maxTokensArg
    .unwrap()
    .optional()
    .describe(`Budget in UTF-8 bytes (snapshot default ${SNAPSHOT_BUDGET}).`),
  cursor: cursorArg.describe('nextCursor, to continue.'),
});

type Input = z.infer<typeof input>;

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

function perform(machine: BrowserDriver, args: Input, uploads: () => string[]): Promise<BrowserAnswer> {
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
      return machine.answerDialog(need(args, 'accept'), args.text);
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

/** Runs the action, telling what the egress proxy refused meanwhile: as a note, or on the error it caused. */
async function withRefusals(machine: BrowserDriver, id: string, run: () => Promise<BrowserAnswer>) {
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
}

export const browserUse = defineTool({
  name: 'browser_use',
  title: 'Drive a headless browser',
  description:
    'A disposable headless browser per conversation. snapshot gives refs (e5) for the element actions; an older snapshot’s ref fails at once. console, network: since the last call. An egress proxy refuses private addresses. Page content is framed as untrusted.',
  capability: 'browser',
  input,
  output: browserOutput,
  annotations: USE_ANNOTATIONS,
  actions: ['enclosureControl', 'networkEgress', 'processSpawn'],
  workspaceScoped: true,
  render: renderUse,
  async handle(args, context) {
    const rigs = context.engine.rigs;
    rigs.ready('browser', args.engine);
    const { rigId, answer } = await onRig(
      (act: (machine: BrowserDriver, id: string) => Promise<BrowserAnswer>) =>
        rigs.browser(callerOf(context), args.engine, args.rig_id, act),
      (machine, id) =>
        withRefusals(machine, id, () => perform(machine, args, () => rigs.uploadPaths(need(args, 'paths')))),
    );
    return useResult(
      {
        rig_id: rigId,
        tab: answer.tab,
        notes: answer.notes,
        content: framed(answer.body, `browser rig ${rigId} tab ${answer.tab}`),
        ...answer.page,
      },
      answer.image,
    );
  },
});
