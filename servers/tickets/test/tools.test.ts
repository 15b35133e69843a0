import { resultText } from '@toolmesh/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TicketsFixture, ticketsFixture } from './fixture.js';

type T = { id: string; version: number; status: string; [key: string]: unknown };

let fx: TicketsFixture;
beforeEach(async () => {
  fx = await ticketsFixture();
});
afterEach(() => fx.close());

const A = { workspace_id: 'alpha' };
const B = { workspace_id: 'beta' };

async function create(title: string, extra: Record<string, unknown> = {}, ws = A): Promise<T> {
  const out = await fx.ok<{ tickets: T[] }>('create_ticket', { ...ws, tickets: [{ title, ...extra }] });
  return out.tickets[0] as T;
}

describe('tool list', () => {
  it('serves exactly the 17 contract tools, workspace-scoped, with their action classes', async () => {
    const { tools } = await fx.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'create_ticket',
        'get_ticket',
        'list_tickets',
        'update_ticket',
        'assign_ticket',
        'reassign_ticket',
        'add_ticket_collaborator',
        'comment_on_ticket',
        'close_ticket',
        'fail_ticket',
        'delegate_ticket',
        'ticket_pr_link',
        'ticket_relation',
        'list_ticket_relations',
        'search_tickets',
        'ticket_history',
        'list_ready_tickets',
      ].sort(),
    );
    const meta = Object.fromEntries(tools.map((t) => [t.name, t._meta ?? {}]));
    for (const tool of tools) {
      expect(tool._meta?.['toolmesh/workspaceScoped']).toBe(true);
      expect(Object.keys(tool.inputSchema.properties ?? {})).toContain('workspace_id');
    }
    const approval = tools.filter((t) => t._meta?.['toolmesh/requiresApproval'] === true).map((t) => t.name);
    expect(approval.sort()).toEqual(
      [
        'create_ticket',
        'update_ticket',
        'assign_ticket',
        'reassign_ticket',
        'close_ticket',
        'ticket_relation',
      ].sort(),
    );
    expect(meta.get_ticket?.['toolmesh/actions']).toEqual(['read']);
    expect(meta.comment_on_ticket?.['toolmesh/actions']).toEqual(['ticketWrite']);
    expect(meta.comment_on_ticket?.['toolmesh/requiresApproval']).not.toBe(true);
  });
});

describe('create_ticket and get_ticket', () => {
  it('numbers tickets per workspace and records the author', async () => {
    const one = await create('First', {
      description: '# Hello',
      priority: 'high',
      labels: ['bug'],
      agent: 'ada',
    });
    const two = await create('Second');
    const other = await create('Elsewhere', {}, B);
    expect([one.id, two.id, other.id]).toEqual(['T-1', 'T-2', 'T-1']);
    const got = await fx.ok<T>('get_ticket', { ...A, ticket: 'T-1' });
    expect(got).toMatchObject({
      id: 'T-1',
      workspace_id: 'alpha',
      title: 'First',
      description: '# Hello',
      status: 'todo',
      priority: 'P1',
      labels: ['bug'],
      assignee: { agent: 'ada', team: null },
      author: 'tester',
      version: 1,
      comments: [],
    });
  });

  it('creates a batch all or nothing, and dry_run saves nothing', async () => {
    const preview = await fx.ok<{ dryRun: boolean; tickets: T[] }>('create_ticket', {
      ...A,
      dry_run: true,
      tickets: [{ title: 'a' }, { title: 'b', status: 'wip' }],
    });
    expect(preview.dryRun).toBe(true);
    expect(preview.tickets.map((t) => [t.id, t.status])).toEqual([
      ['T-1', 'todo'],
      ['T-2', 'in_progress'],
    ]);
    expect((await fx.ok<{ total: number }>('list_tickets', A)).total).toBe(0);
    const bad = await fx.fails('create_ticket', {
      ...A,
      tickets: [{ title: 'ok' }, { title: 'x', status: 'nope' }],
    });
    expect(bad).toMatch(/unknown status "nope".*backlog, todo, in_progress/);
    expect((await fx.ok<{ total: number }>('list_tickets', A)).total).toBe(0);
    const tooMany = await fx.fails('create_ticket', {
      ...A,
      tickets: Array.from({ length: 51 }, (_, i) => ({ title: `t${i}` })),
    });
    expect(tooMany).toMatch(/tickets/);
    const done = await fx.ok<{ tickets: T[] }>('create_ticket', {
      ...A,
      tickets: [{ title: 'p' }, { title: 'c', parent: 'T-1' }],
    });
    expect(done.tickets.map((t) => [t.id, t.parent])).toEqual([
      ['T-1', null],
      ['T-2', 'T-1'],
    ]);
  });

  it('refuses bad input with messages that say what to do', async () => {
    expect(await fx.fails('get_ticket', { ...A, ticket: 'banana' })).toMatch(/not a ticket id.*T-3/);
    expect(await fx.fails('get_ticket', { ...A, ticket: 'T-99' })).toMatch(/T-99 not found.*list_tickets/);
    expect(await fx.fails('create_ticket', { ...A, tickets: [{ title: 'x', priority: 'P9' }] })).toMatch(
      /unknown priority "P9"/,
    );
    // Found by the fuzz test: these names of Object properties "failed unexpectedly" in SQLite.
    for (const word of ['constructor', '__proto__']) {
      expect(await fx.fails('update_ticket', { ...A, ticket: 'T-1', status: word })).toMatch(
        `unknown status "${word}"`,
      );
      expect(await fx.fails('list_tickets', { ...A, status: [word] })).toMatch(`unknown status "${word}"`);
    }
    expect(await fx.fails('update_ticket', { ...A, ticket: 'T-1', priority: '__proto__' })).toMatch(
      /unknown priority "__proto__"/,
    );
    expect(await fx.fails('get_ticket', { ticket: 'T-1' })).toMatch(/workspace_id is required/);
    expect(await fx.fails('get_ticket', { workspace_id: 'gamma', ticket: 'T-1' })).toMatch(/not served/);
    expect(await fx.fails('update_ticket', { ...A, ticket: 'T-1', bogus: 1 })).toMatch(/unknown argument/);
  });
});

describe('update_ticket', () => {
  it('accepts status aliases and bumps the version', async () => {
    await create('x');
    for (const [alias, status] of [
      ['in-progress', 'in_progress'],
      ['Doing', 'in_progress'],
      ['open', 'todo'],
      ['in review', 'in_review'],
      ['completed', 'done'],
      ['closed', 'done'],
      ['canceled', 'cancelled'],
      ['backlog', 'backlog'],
    ] as const) {
      const out = await fx.ok<T>('update_ticket', { ...A, ticket: 'T-1', status: alias });
      expect(out.status).toBe(status);
    }
    const err = await fx.fails('update_ticket', { ...A, ticket: 'T-1', status: 'sleeping' });
    expect(err).toMatch(
      /unknown status "sleeping": use one of backlog, todo, in_progress, in_review, done, failed, cancelled/,
    );
  });

  it('changes fields, replaces labels, and refuses a stale expected_version with the current one', async () => {
    await create('x', { labels: ['a'] });
    const v2 = await fx.ok<T>('update_ticket', {
      ...A,
      ticket: 'T-1',
      title: 'renamed',
      priority: 'P0',
      labels: ['b', 'c'],
      expected_version: 1,
    });
    expect(v2).toMatchObject({ title: 'renamed', priority: 'P0', labels: ['b', 'c'], version: 2 });
    const stale = await fx.fails('update_ticket', {
      ...A,
      ticket: 'T-1',
      title: 'again',
      expected_version: 1,
    });
    expect(stale).toMatch(/conflict: T-1 is at version 2, not 1/);
    expect((await fx.ok<T>('get_ticket', { ...A, ticket: 'T-1' })).title).toBe('renamed');
    expect(await fx.fails('update_ticket', { ...A, ticket: 'T-1' })).toMatch(/nothing to change/);
  });
});

describe('assignment, collaborators, comments, closing', () => {
  it('assigns agent and team, refuses taking over, reassigns with history', async () => {
    await create('x');
    expect(await fx.ok<T>('assign_ticket', { ...A, ticket: 'T-1', agent: 'ada' })).toMatchObject({
      assignee: { agent: 'ada', team: null },
    });
    expect(await fx.ok<T>('assign_ticket', { ...A, ticket: 'T-1', team: 'core' })).toMatchObject({
      assignee: { agent: 'ada', team: 'core' },
    });
    expect(await fx.fails('assign_ticket', { ...A, ticket: 'T-1', agent: 'bob' })).toMatch(
      /use reassign_ticket/,
    );
    expect(await fx.fails('assign_ticket', { ...A, ticket: 'T-1' })).toMatch(/give agent, team or both/);
    expect(await fx.ok<T>('reassign_ticket', { ...A, ticket: 'T-1', agent: 'bob' })).toMatchObject({
      assignee: { agent: 'bob', team: null },
    });
    const { events } = await fx.ok<{ events: { kind: string; detail: Record<string, unknown> }[] }>(
      'ticket_history',
      { ...A, ticket: 'T-1' },
    );
    expect(events.at(-1)).toMatchObject({
      kind: 'reassigned',
      detail: { from: { agent: 'ada', team: 'core' }, to: { agent: 'bob', team: null } },
    });
    const listed = await fx.ok<{ tickets: T[] }>('list_tickets', { ...A, assignee: 'bob' });
    expect(listed.tickets.map((t) => t.id)).toEqual(['T-1']);
  });

  it('adds collaborators once, comments signed by the caller, closes and fails', async () => {
    await create('x');
    await create('y');
    await fx.ok('add_ticket_collaborator', { ...A, ticket: 'T-1', collaborator: 'eve' });
    const again = await fx.ok<T>('add_ticket_collaborator', { ...A, ticket: 'T-1', collaborator: 'eve' });
    expect(again.collaborators).toEqual(['eve']);
    const commented = await fx.as('reviewer', 'comment_on_ticket', {
      ...A,
      ticket: 'T-1',
      body: 'looks good',
    });
    expect(commented.structuredContent).toMatchObject({
      ticket: 'T-1',
      comments: [{ author: 'reviewer', body: 'looks good' }],
    });
    const closed = await fx.ok<T>('close_ticket', { ...A, ticket: 'T-1', output: 'shipped' });
    expect(closed).toMatchObject({ status: 'done', output: 'shipped' });
    const failed = await fx.ok<T>('fail_ticket', { ...A, ticket: 'T-2', error: 'disk full' });
    expect(failed).toMatchObject({ status: 'failed', error: 'disk full' });
    const { events } = await fx.ok<{ events: { kind: string; author: string }[] }>('ticket_history', {
      ...A,
      ticket: 'T-1',
    });
    expect(events.map((e) => [e.kind, e.author])).toEqual([
      ['created', 'tester'],
      ['collaborator_added', 'tester'],
      ['commented', 'reviewer'],
      ['closed', 'tester'],
    ]);
  });
});

describe('list_tickets', () => {
  it('filters and sorts, and pages within the budget', async () => {
    await create('Low one', { priority: 'P3', labels: ['ui'] });
    await create('Urgent fix', { priority: 'P0', description: 'the parser crashes' });
    await create('Child', { parent: 'T-1', status: 'in_progress' });
    const ids = async (args: Record<string, unknown>) =>
      (await fx.ok<{ tickets: T[] }>('list_tickets', { ...A, ...args })).tickets.map((t) => t.id);
    expect(await ids({})).toEqual(['T-2', 'T-3', 'T-1']);
    expect(await ids({ sort: 'number' })).toEqual(['T-1', 'T-2', 'T-3']);
    expect(await ids({ status: ['wip'] })).toEqual(['T-3']);
    expect(await ids({ label: 'ui' })).toEqual(['T-1']);
    expect(await ids({ priority: ['p0', 'P3'] })).toEqual(['T-2', 'T-1']);
    expect(await ids({ parent: 'T-1' })).toEqual(['T-3']);
    expect(await ids({ text: 'parser' })).toEqual(['T-2']);
    expect(await ids({ text: '100%' })).toEqual([]);
    const many = Array.from({ length: 20 }, (_, i) => ({
      title: `filler ticket number ${i} ${'x'.repeat(40)}`,
    }));
    await fx.ok('create_ticket', { ...A, tickets: many });
    const first = await fx.ok<{ tickets: T[]; truncated: boolean; nextCursor: string; total: number }>(
      'list_tickets',
      { ...A, sort: 'number', maxTokens: 1000 },
    );
    expect(first.total).toBe(23);
    expect(first.truncated).toBe(true);
    const seen = [...first.tickets.map((t) => t.id)];
    let cursor: string | undefined = first.nextCursor;
    while (cursor) {
      const page: { tickets: T[]; nextCursor?: string } = await fx.ok('list_tickets', {
        ...A,
        sort: 'number',
        maxTokens: 1000,
        cursor,
      });
      seen.push(...page.tickets.map((t) => t.id));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(Array.from({ length: 23 }, (_, i) => `T-${i + 1}`));
    expect(await fx.fails('list_tickets', { ...A, sort: 'priority', cursor: first.nextCursor })).toMatch(
      /cursor/,
    );
  });
});

describe('list_tickets by assignee', () => {
  it('counts and lists the tickets of an agent or a team, in this workspace only', async () => {
    await fx.ok('create_ticket', {
      ...A,
      tickets: [
        { title: 'agent one', agent: 'ada', priority: 'P0' },
        { title: 'team one', team: 'ada', priority: 'P1' },
        { title: 'both', agent: 'ada', team: 'ada', priority: 'P3' },
        { title: 'someone else', agent: 'bob', priority: 'P0' },
      ],
    });
    await create('other workspace', { agent: 'ada', priority: 'P0' }, B);
    const listed = async (args: Record<string, unknown>) => {
      const out = await fx.ok<{ total: number; tickets: T[] }>('list_tickets', { ...A, ...args });
      return [out.total, out.tickets.map((t) => t.title)];
    };
    expect(await listed({ assignee: 'ada' })).toEqual([3, ['agent one', 'team one', 'both']]);
    expect(await listed({ assignee: 'ada', priority: ['P0', 'P3'], sort: 'number' })).toEqual([
      2,
      ['agent one', 'both'],
    ]);
    expect(await listed({ assignee: 'ada', maxTokens: 256 })).toMatchObject([3, ['agent one']]);
    expect(await listed({ assignee: 'nobody' })).toEqual([0, []]);
  });
});

describe('relations', () => {
  beforeEach(async () => {
    await fx.ok('create_ticket', {
      ...A,
      tickets: [{ title: 'one' }, { title: 'two' }, { title: 'three' }, { title: 'four' }],
    });
  });

  it('keeps the inverse of every relation and removes it from either side', async () => {
    await fx.ok('ticket_relation', { ...A, ticket: 'T-2', relation: 'blocked_by', other: 'T-1' });
    await fx.ok('ticket_relation', { ...A, ticket: 'T-3', relation: 'duplicate_of', other: 'T-1' });
    await fx.ok('ticket_relation', { ...A, ticket: 'T-4', relation: 'discovered_from', other: 'T-1' });
    await fx.ok('ticket_relation', { ...A, ticket: 'T-1', relation: 'related-to', other: 'T-4' });
    await fx.ok('ticket_relation', { ...A, ticket: 'T-2', relation: 'sub_issue_of', other: 'T-1' });
    type View = {
      parent: T | null;
      children: T[];
      blockedBy: T[];
      blocking: T[];
      other: { kind: string; ticket: T }[];
    };
    const one = await fx.ok<View>('list_ticket_relations', { ...A, ticket: 'T-1' });
    expect(one.blocking.map((t) => t.id)).toEqual(['T-2']);
    expect(one.children.map((t) => t.id)).toEqual(['T-2']);
    expect(one.other.map((o) => [o.kind, o.ticket.id])).toEqual([
      ['duplicated_by', 'T-3'],
      ['led_to', 'T-4'],
      ['related_to', 'T-4'],
    ]);
    const two = await fx.ok<View>('list_ticket_relations', { ...A, ticket: 'T-2' });
    expect(two.blockedBy.map((t) => t.id)).toEqual(['T-1']);
    expect(two.parent?.id).toBe('T-1');
    const four = await fx.ok<View>('list_ticket_relations', { ...A, ticket: 'T-4' });
    expect(four.other.map((o) => [o.kind, o.ticket.id])).toEqual([
      ['discovered_from', 'T-1'],
      ['related_to', 'T-1'],
    ]);
    // Removed from the other end, with the inverse name.
    await fx.ok('ticket_relation', {
      ...A,
      action: 'remove',
      ticket: 'T-1',
      relation: 'blocking',
      other: 'T-2',
    });
    await fx.ok('ticket_relation', {
      ...A,
      action: 'remove',
      ticket: 'T-4',
      relation: 'related_to',
      other: 'T-1',
    });
    await fx.ok('ticket_relation', {
      ...A,
      action: 'remove',
      ticket: 'T-1',
      relation: 'parent_of',
      other: 'T-2',
    });
    const after = await fx.ok<View>('list_ticket_relations', { ...A, ticket: 'T-2' });
    expect(after.blockedBy).toEqual([]);
    expect(after.parent).toBeNull();
    expect(
      await fx.fails('ticket_relation', {
        ...A,
        action: 'remove',
        ticket: 'T-1',
        relation: 'blocking',
        other: 'T-2',
      }),
    ).toMatch(/no blocking relation/);
    expect(
      await fx.fails('ticket_relation', { ...A, ticket: 'T-1', relation: 'likes', other: 'T-2' }),
    ).toMatch(/unknown relation "likes".*blocked_by/);
    expect(
      await fx.fails('ticket_relation', { ...A, ticket: 'T-1', relation: 'blocking', other: 'T-1' }),
    ).toMatch(/itself/);
    const detail = await fx.ok<{ relations: { kind: string; ticket: string }[] }>('get_ticket', {
      ...A,
      ticket: 'T-3',
    });
    expect(detail.relations).toEqual([{ kind: 'duplicate_of', ticket: 'T-1' }]);
  });

  it('refuses blocking and parent cycles, showing the cycle', async () => {
    await fx.ok('ticket_relation', { ...A, ticket: 'T-1', relation: 'blocking', other: 'T-2' });
    await fx.ok('ticket_relation', { ...A, ticket: 'T-2', relation: 'blocking', other: 'T-3' });
    const cycle = await fx.fails('ticket_relation', {
      ...A,
      ticket: 'T-1',
      relation: 'blocked_by',
      other: 'T-3',
    });
    expect(cycle).toMatch(/blocking cycle T-3 → T-1 → T-2 → T-3/);
    await fx.ok('ticket_relation', { ...A, ticket: 'T-2', relation: 'sub_issue_of', other: 'T-1' });
    await fx.ok('ticket_relation', { ...A, ticket: 'T-3', relation: 'sub_issue_of', other: 'T-2' });
    const parents = await fx.fails('ticket_relation', {
      ...A,
      ticket: 'T-1',
      relation: 'sub_issue_of',
      other: 'T-3',
    });
    expect(parents).toMatch(/parent cycle T-1 → T-3 → T-2 → T-1/);
    expect((await fx.ok<T>('get_ticket', { ...A, ticket: 'T-1' })).parent).toBeNull();
  });

  it('lists ready tickets: open, without unresolved blockers, by priority', async () => {
    await fx.ok('update_ticket', { ...A, ticket: 'T-4', priority: 'P0' });
    await fx.ok('ticket_relation', { ...A, ticket: 'T-2', relation: 'blocked_by', other: 'T-1' });
    await fx.ok('ticket_relation', { ...A, ticket: 'T-3', relation: 'blocked_by', other: 'T-1' });
    const ready = async () =>
      (await fx.ok<{ tickets: T[] }>('list_ready_tickets', A)).tickets.map((t) => t.id);
    expect(await ready()).toEqual(['T-4', 'T-1']);
    await fx.ok('fail_ticket', { ...A, ticket: 'T-1', error: 'broke' });
    expect(await ready()).toEqual(['T-4']);
    await fx.ok('close_ticket', { ...A, ticket: 'T-1' });
    expect(await ready()).toEqual(['T-4', 'T-2', 'T-3']);
    await fx.ok('assign_ticket', { ...A, ticket: 'T-3', agent: 'ada' });
    expect(
      (await fx.ok<{ tickets: T[] }>('list_ready_tickets', { ...A, assignee: 'ada' })).tickets.map(
        (t) => t.id,
      ),
    ).toEqual(['T-3']);
  });
});

describe('delegate_ticket', () => {
  it('creates tracked children up to the depth cap', async () => {
    await create('root');
    let parent = 'T-1';
    for (let level = 1; level <= 5; level++) {
      const child = await fx.ok<T>('delegate_ticket', {
        ...A,
        ticket: parent,
        agent: `agent${level}`,
        title: `level ${level}`,
      });
      expect(child).toMatchObject({
        parent,
        assignee: { agent: `agent${level}` },
        status: 'todo',
        author: 'tester',
      });
      parent = child.id;
    }
    const refused = await fx.fails('delegate_ticket', {
      ...A,
      ticket: parent,
      agent: 'deep',
      title: 'too deep',
    });
    expect(refused).toMatch(/delegation too deep.*6 levels.*cap of 5/);
    expect((await fx.ok<{ total: number }>('list_tickets', A)).total).toBe(6);
    const { events } = await fx.ok<{ events: { kind: string; detail: Record<string, unknown> }[] }>(
      'ticket_history',
      {
        ...A,
        ticket: 'T-1',
      },
    );
    expect(events.at(-1)).toMatchObject({ kind: 'delegated', detail: { child: 'T-2', agent: 'agent1' } });
    await fx.ok('close_ticket', { ...A, ticket: 'T-1' });
    expect(await fx.fails('delegate_ticket', { ...A, ticket: 'T-1', agent: 'x', title: 'y' })).toMatch(
      /is done/,
    );
  });

  it('honours a smaller cap', async () => {
    const small = await ticketsFixture({ maxDelegationDepth: 1 });
    try {
      await small.ok('create_ticket', { ...A, tickets: [{ title: 'root' }] });
      await small.ok('delegate_ticket', { ...A, ticket: 'T-1', agent: 'a', title: 'child' });
      expect(
        await small.fails('delegate_ticket', { ...A, ticket: 'T-2', agent: 'a', title: 'grandchild' }),
      ).toMatch(/cap of 1/);
    } finally {
      await small.close();
    }
  });
});

describe('ticket_pr_link', () => {
  it('links and unlinks by URL or node id, and refuses anything else', async () => {
    await create('x');
    await fx.ok('ticket_pr_link', { ...A, ticket: 'T-1', pr: 'https://github.com/acme/app/pull/12' });
    const both = await fx.ok<T>('ticket_pr_link', {
      ...A,
      ticket: 'T-1',
      action: 'link',
      pr: 'PR_kwDOabc123',
    });
    expect(both.prs).toEqual(['https://github.com/acme/app/pull/12', 'PR_kwDOabc123']);
    const one = await fx.ok<T>('ticket_pr_link', {
      ...A,
      ticket: 'T-1',
      action: 'unlink',
      pr: 'PR_kwDOabc123',
    });
    expect(one.prs).toEqual(['https://github.com/acme/app/pull/12']);
    expect(
      await fx.fails('ticket_pr_link', { ...A, ticket: 'T-1', action: 'unlink', pr: 'PR_kwDOabc123' }),
    ).toMatch(/not linked/);
    expect(await fx.fails('ticket_pr_link', { ...A, ticket: 'T-1', pr: 'see slack' })).toMatch(
      /not a pull request/,
    );
  });
});

describe('search_tickets', () => {
  it('ranks title matches over description and comment matches, and takes FTS syntax literally', async () => {
    await create('Parser crash on empty input');
    await create('Logging', { description: 'the parser logs too much' });
    await create('Unrelated');
    await fx.ok('comment_on_ticket', { ...A, ticket: 'T-3', body: 'maybe the parser again' });
    const out = await fx.ok<{ hits: { ticket: T; score: number }[] }>('search_tickets', {
      ...A,
      query: 'parser',
    });
    expect(out.hits.map((h) => h.ticket.id)).toEqual(['T-1', 'T-2', 'T-3']);
    const quoted = await fx.ok<{ hits: unknown[] }>('search_tickets', { ...A, query: 'parser: "crash*' });
    expect(quoted.hits.length).toBe(1);
    expect(await fx.fails('search_tickets', { ...A, query: '***' })).toMatch(/no words/);
    await fx.ok('update_ticket', { ...A, ticket: 'T-3', title: 'Tokenizer' });
    const renamed = await fx.ok<{ hits: { ticket: T }[] }>('search_tickets', { ...A, query: 'tokenizer' });
    expect(renamed.hits.map((h) => h.ticket.id)).toEqual(['T-3']);
  });
});

describe('workspace isolation', () => {
  it('never shows or touches a ticket of another workspace', async () => {
    await create('alpha secret', { description: 'classified' });
    await create('alpha two');
    await create('beta only', {}, B);
    expect(await fx.fails('get_ticket', { ...B, ticket: 'T-2' })).toMatch(
      /T-2 not found in workspace "beta"/,
    );
    expect(await fx.fails('ticket_history', { ...B, ticket: 'T-2' })).toMatch(/not found/);
    expect(await fx.fails('update_ticket', { ...B, ticket: 'T-2', title: 'hijack' })).toMatch(/not found/);
    expect(
      await fx.fails('ticket_relation', { ...B, ticket: 'T-1', relation: 'blocking', other: 'T-2' }),
    ).toMatch(/T-2 not found in workspace "beta"/);
    expect(await fx.fails('delegate_ticket', { ...B, ticket: 'T-2', agent: 'a', title: 'b' })).toMatch(
      /not found/,
    );
    expect(await fx.fails('create_ticket', { ...B, tickets: [{ title: 'c', parent: 'T-2' }] })).toMatch(
      /not found/,
    );
    expect((await fx.ok<{ hits: unknown[] }>('search_tickets', { ...B, query: 'classified' })).hits).toEqual(
      [],
    );
    expect((await fx.ok<{ hits: unknown[] }>('search_tickets', { ...B, query: 'alpha' })).hits).toEqual([]);
    const beta = await fx.ok<{ tickets: T[] }>('list_tickets', B);
    expect(beta.tickets.map((t) => t.title)).toEqual(['beta only']);
    expect((await fx.ok<{ tickets: T[] }>('list_ready_tickets', B)).tickets.map((t) => t.title)).toEqual([
      'beta only',
    ]);
    // Same number, different ticket: acting in beta on T-1 leaves alpha's T-1 alone.
    await fx.ok('ticket_relation', { ...A, ticket: 'T-1', relation: 'blocking', other: 'T-2' });
    await fx.ok('close_ticket', { ...B, ticket: 'T-1' });
    expect((await fx.ok<T>('get_ticket', { ...A, ticket: 'T-1' })).status).toBe('todo');
    const betaRelations = await fx.ok<{ blocking: T[] }>('list_ticket_relations', { ...B, ticket: 'T-1' });
    expect(betaRelations.blocking).toEqual([]);
  });
});

describe('rendering', () => {
  it('renders a text form for clients that ignore structured content', async () => {
    await create('Shown', { agent: 'ada', labels: ['x'] });
    const result = await fx.call('list_tickets', A);
    expect(resultText(result)).toContain('T-1 [todo] P2 Shown @ada #x');
  });
});
