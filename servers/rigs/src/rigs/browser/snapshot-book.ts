import { type BudgetPage, decodeCursor, requestKey, ToolError, takeWithinBudget } from '@toolmesh/core';
import { narrowSnapshot } from './narrow-snapshot.js';

export interface Paging {
  maxTokens: number;
  cursor?: string | undefined;
}

export interface SnapshotRequest {
  scope?: string;
  depth?: number;
  find?: string;
}

interface Snapshot<Page> {
  page: Page;
  navigation: number;
  refs: Set<string>;
  lines: string[];
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
 * The last snapshot of a browser and the refs it gave: a cursor continues it without taking a
 * new one, and a ref is checked against it before any action.
 */
export class SnapshotBook<Page> {
  private last: Snapshot<Page> | undefined;
  private count = 0;

  /**
   * The page of the snapshot a request asks for: with a cursor, of the last one taken for the same
   * request; without, of a new one `take` makes (its text in the aria-snapshot form, with refs).
   */
  async page(
    page: Page,
    navigation: number,
    request: SnapshotRequest & Paging,
    take: () => Promise<string>,
  ): Promise<SnapshotPage> {
    const key = requestKey({ scope: request.scope, depth: request.depth, find: request.find });
    let snapshot = this.last;
    if (request.cursor === undefined || !snapshot || snapshot.request !== key || snapshot.page !== page) {
      if (request.cursor !== undefined) {
        throw new ToolError('`cursor` belongs to an older snapshot: call snapshot again without it.');
      }
      const text = await take();
      const previous = this.last;
      // A scoped snapshot shows part of the page, so the refs of the last whole one stay usable.
      const kept =
        request.scope !== undefined && previous?.page === page && previous.navigation === navigation
          ? [...previous.refs]
          : [];
      snapshot = {
        page,
        navigation,
        refs: new Set([
          ...kept,
          ...[...text.matchAll(/\[ref=([a-z0-9]+)\]/g)].map((match) => match[1] as string),
        ]),
        lines: narrowSnapshot(text, request.find),
        request: key,
        key: `${key}.${++this.count}`,
      };
      this.last = snapshot;
    }
    const { items, ...paging } = takeWithinBudget(snapshot.lines, request.maxTokens, {
      offset: decodeCursor(request.cursor, snapshot.key),
      key: snapshot.key,
      size: (line) => Buffer.byteLength(line, 'utf8') + 1,
    });
    const notes: string[] = [];
    if (request.find !== undefined && snapshot.lines.length === 0) {
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
