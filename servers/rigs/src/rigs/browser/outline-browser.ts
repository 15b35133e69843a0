import type { BrowserAnswer } from './browser-machine.js';
import type { Paging, SnapshotRequest } from './snapshot-book.js';

/** What the Firefox and WebKit engines do in this build; other actions are refused with this list. */
export const OUTLINE_ACTIONS = ['navigate', 'snapshot', 'click'] as const;

/** A browser whose snapshots are the in-page outline: Firefox over BiDi, WebKit over WebDriver. */
export interface OutlineBrowser {
  navigate(url: string): Promise<BrowserAnswer>;
  takeSnapshot(request: SnapshotRequest & Paging): Promise<BrowserAnswer>;
  click(ref: string): Promise<BrowserAnswer>;
  egressRefusals(): string[];
}
