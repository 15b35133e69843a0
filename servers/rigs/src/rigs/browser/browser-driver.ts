import type { BudgetPage } from '@toolmesh/core';
import { ToolError } from '@toolmesh/core';
import type { Machine } from '../rig-pool.js';
import type { Paging, SnapshotRequest } from './snapshot-book.js';

export type { Paging, SnapshotRequest } from './snapshot-book.js';

export type BrowserEngine = 'chromium' | 'firefox' | 'webkit';

/** What an action gives back: page-derived text (framed by the tool), rigs' own notes, an image. */
export interface BrowserAnswer {
  tab: string;
  /** Everything that came from the page: url, title, snapshot, text, messages. */
  body: string;
  notes: string[];
  image?: Buffer;
  page?: Omit<BudgetPage<string>, 'items'>;
}

export type TabsOp = 'list' | 'select' | 'close';

/** Every browser_use action, whatever the engine; one an engine's protocol cannot do throws `unsupported`. */
export interface BrowserDriver extends Machine {
  navigate(url: string): Promise<BrowserAnswer>;
  back(): Promise<BrowserAnswer>;
  takeSnapshot(request: SnapshotRequest & Paging): Promise<BrowserAnswer>;
  click(ref: string, button?: 'left' | 'right' | 'middle', double?: boolean): Promise<BrowserAnswer>;
  fill(ref: string, text: string): Promise<BrowserAnswer>;
  select(ref: string, values: string[]): Promise<BrowserAnswer>;
  hover(ref: string): Promise<BrowserAnswer>;
  press(key: string, ref?: string): Promise<BrowserAnswer>;
  drag(ref: string, targetRef: string): Promise<BrowserAnswer>;
  upload(ref: string, files: string[]): Promise<BrowserAnswer>;
  answerDialog(accept: boolean, promptText?: string): Promise<BrowserAnswer>;
  tabsAction(op: TabsOp, tab?: string): Promise<BrowserAnswer>;
  drain(kind: 'console' | 'network'): Promise<BrowserAnswer>;
  extractText(scope: string | undefined, paging: Paging): Promise<BrowserAnswer>;
  clipboard(text?: string): Promise<BrowserAnswer>;
  screenshot(): Promise<BrowserAnswer>;
  /** What the rig's egress proxy refused since the last call. */
  egressRefusals(): string[];
}

/** The error for an action an engine's protocol cannot do, naming the engines that can. */
export function unsupported(
  engine: BrowserEngine,
  action: string,
  why: string,
  by: BrowserEngine[],
): ToolError {
  return new ToolError(
    `engine ${engine} cannot do ${action} (${why}): use engine ${by.join(' or ')} for it.`,
  );
}
