import { type BudgetPage, decodeCursor, requestKey, ToolError, takeWithinBudget } from '@toolmesh/core';

export interface Paging {
  maxTokens: number;
  cursor?: string | undefined;
}

export interface SnapshotRequest {
  scope?: string;
  depth?: number;
  find?: string;
}

/** Where a walk of the page starts and how many bytes of lines it gathers before stopping. */
export interface SnapshotWindow {
  offset: number;
  budget: number;
}

/** What one walk gave: the lines from the window's offset, and whether it stopped before the end. */
export interface WalkedLines {
  lines: string[];
  more: boolean;
}

interface Snapshot<Page> {
  page: Page;
  navigation: number;
  /** The refs of every page of it handed out so far. */
  refs: Set<string>;
  /** The request it answers (scope, depth, find), so a cursor continues the same one. */
  request: string;
  /** What its cursors are bound to: the request and this snapshot. */
  key: string;
}

/** One page of a snapshot: its lines within the budget, the paging fields and rigs' notes. */
export interface SnapshotPage {
  lines: string[];
  paging: Omit<BudgetPage<string>, 'items'>;
  notes: string[];
}

/**
 * The last snapshot of a browser and the refs it gave. A snapshot is walked a page at a time (the
 * walk stops at the budget), so a cursor walks on from where the last page stopped; a ref is
 * checked against the pages given before any action.
 */
export class SnapshotBook<Page> {
  private last: Snapshot<Page> | undefined;
  private count = 0;

  /**
   * The page of the snapshot a request asks for: with a cursor, the next page of the last one taken
   * for the same request on the same document; without, the first page of a new one. `walk` gives
   * the lines (aria-snapshot form, with refs) from a window's offset until they pass its budget.
   */
  async page(
    page: Page,
    navigation: number,
    request: SnapshotRequest & Paging,
    walk: (window: SnapshotWindow) => Promise<WalkedLines>,
  ): Promise<SnapshotPage> {
    const key = requestKey({ scope: request.scope, depth: request.depth, find: request.find });
    let snapshot = this.last;
    if (request.cursor === undefined) {
      const previous = this.last;
      // A scoped snapshot shows part of the page, so the refs of the last whole one stay usable.
      const kept =
        request.scope !== undefined && previous?.page === page && previous.navigation === navigation
          ? [...previous.refs]
          : [];
      snapshot = { page, navigation, refs: new Set(kept), request: key, key: `${key}.${++this.count}` };
      this.last = snapshot;
    } else if (!snapshot || snapshot.request !== key || snapshot.page !== page) {
      throw new ToolError('`cursor` belongs to an older snapshot: call snapshot again without it.');
    } else if (snapshot.navigation !== navigation) {
      throw new ToolError('the page navigated since that snapshot: call snapshot again without cursor.');
    }
    const offset = decodeCursor(request.cursor, snapshot.key);
    const walked = await walk({ offset, budget: request.maxTokens });
    const { items, ...paging } = takeWithinBudget(walked.lines, request.maxTokens, {
      key: snapshot.key,
      base: offset,
      more: walked.more,
      size: (line) => Buffer.byteLength(line, 'utf8') + 1,
    });
    for (const line of items)
      for (const match of line.matchAll(/\[ref=([a-z0-9]+)\]/g)) snapshot.refs.add(match[1] as string);
    const notes: string[] = [];
    if (request.find !== undefined && offset === 0 && items.length === 0 && !paging.blockedByBudget) {
      notes.push(`nothing in the snapshot matches "${request.find}"`);
    }
    if (paging.truncated) {
      notes.push(
        'snapshot cut at maxTokens: continue with nextCursor, or narrow it with scope, depth or find.',
      );
    }
    return { lines: items, paging, notes };
  }

  /**
   * Throws "take a new snapshot" when `ref` is not one the last snapshot of this page gave, or the
   * page navigated since; whether its element is still there is the engine's to check.
   */
  check(page: Page, navigation: number, ref: string): void {
    const last = this.last;
    if (!last || last.page !== page) throw staleRef(ref, 'no snapshot of this tab yet');
    if (!last.refs.has(ref)) throw staleRef(ref, 'it is not in the last snapshot');
    if (last.navigation !== navigation) throw staleRef(ref, 'the page navigated since the snapshot');
  }
}

export function staleRef(ref: string, why: string): ToolError {
  return new ToolError(`ref ${ref} is stale (${why}): take a new snapshot and use its refs.`);
}
