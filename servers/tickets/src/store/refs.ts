import { ToolError } from '@toolmesh/core';

/** A ticket's short id as people write it: `T-12`, `t12`, `#12` or `12`. */
export function parseRef(ref: string): number {
  const match = /^\s*(?:t-?|#)?(\d{1,9})\s*$/i.exec(ref);
  if (!match) {
    throw new ToolError(
      `"${ref}" is not a ticket id: write it as T-<number>, for example T-3 (find ids with list_tickets).`,
      'invalid_ticket',
    );
  }
  return Number(match[1]);
}

export function formatRef(number: number): string {
  return `T-${number}`;
}

export function notFound(ref: string, workspace: string): ToolError {
  return new ToolError(
    `ticket ${ref} not found in workspace "${workspace}": list them with list_tickets or search_tickets.`,
    'not_found',
  );
}

const PR_URL = /^https?:\/\/[^\s/]+\/[^\s/]+\/[^\s/]+\/pulls?\/\d+\/?$/i;
const PR_NODE_ID = /^PR_[A-Za-z0-9_-]{4,}$/;

/** A pull request by its URL or its GitHub node id; anything else is refused rather than stored. */
export function parsePr(pr: string): string {
  const value = pr.trim();
  if (PR_URL.test(value)) return value.replace(/\/$/, '');
  if (PR_NODE_ID.test(value)) return value;
  throw new ToolError(
    `"${pr}" is not a pull request: give its URL (https://github.com/OWNER/REPO/pull/N) or its node id (PR_…).`,
    'invalid_pr',
  );
}
