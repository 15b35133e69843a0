import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteState } from '../src/state/sqlite-state.js';
import { FS_BIN, fixture, type Harness, startHarness, until } from './harness.js';

let harness: Harness;
let root: string;

const ELICITING = { capabilities: { elicitation: { form: {} } } };

beforeAll(async () => {
  harness = await startHarness({});
  root = harness.folder;
  writeFileSync(path.join(root, 'notes.txt'), 'plans are cheap\n');
  await harness.reload(
    (await import('../src/config/load.js')).parseConfig({
      mcpServers: {
        fs: {
          command: process.execPath,
          args: [FS_BIN, '--root', root],
          env: { TOOLMESH_DATA_DIR: path.join(root, '.data') },
        },
        fixture: fixture('fixture'),
      },
      toolPolicy: { fixture__echo: { requiresApproval: true } },
      modes: {
        orchestrate: { deny: { tools: ['fs__read_file'] } },
        careful: { confirm: { actions: ['worktreeWrite'] } },
      },
      approvalTimeoutMs: 5000,
    }),
  );
});
afterAll(() => harness.close());

/** A client that answers every elicitation with `action`, counting them. */
async function elicitingClient(mode: string, action: 'accept' | 'decline' | 'cancel') {
  const connected = await harness.connect({ ...ELICITING, mode });
  const asked: string[] = [];
  connected.client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request.params.message);
    return { action, ...(action === 'accept' && { content: {} }) };
  });
  return { ...connected, asked };
}

describe('plan mode', () => {
  it('blocks a work-tree write with the mode, the rule and what would allow it, and lets a read through', async () => {
    const { call } = await harness.connect({ mode: 'plan' });
    const blocked = await call('fs__copy_file', { source: 'notes.txt', destination: 'copy.txt' });
    expect(blocked.isError).toBe(true);
    expect(resultText(blocked)).toMatch(
      /^fs__copy_file is blocked in plan mode: mode plan denies the action class worktreeWrite\. It is allowed in mode chat.*exit_plan_mode/,
    );
    expect(existsSync(path.join(root, 'copy.txt'))).toBe(false);
    const read = await call('fs__read_file', { path: 'notes.txt' });
    expect(read.isError).toBeFalsy();
    expect(resultText(read)).toContain('plans are cheap');
  });

  it('blocks the same write reached through call_tool', async () => {
    const { call } = await harness.connect({ mode: 'plan' });
    const blocked = await call('call_tool', {
      name: 'fs__copy_file',
      arguments: { source: 'notes.txt', destination: 'copy.txt' },
    });
    expect(blocked.isError).toBe(true);
    expect(resultText(blocked)).toMatch(/blocked in plan mode/);
    expect(existsSync(path.join(root, 'copy.txt'))).toBe(false);
  });

  it('lists what plan allows, exit_plan_mode among it, and leaves the rest out', async () => {
    const plan = await harness.connect({ mode: 'plan' });
    const names = (await plan.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('fs__read_file');
    expect(names).toContain('exit_plan_mode');
    expect(names).not.toContain('fs__copy_file');
    expect(names).not.toContain('fs__apply_patch');
    const chat = await harness.connect({ mode: 'chat' });
    const chatNames = (await chat.client.listTools()).tools.map((tool) => tool.name);
    expect(chatNames).toContain('fs__copy_file');
    expect(chatNames).not.toContain('exit_plan_mode');
  });

  it('has search_tool_bm25 mark the write tool not callable, with the reason', async () => {
    const { call } = await harness.connect({ mode: 'plan' });
    const found = await call('search_tool_bm25', { query: 'copy file', limit: 3 });
    const hits = (
      found.structuredContent as { results: { name: string; callable: boolean; reason?: string }[] }
    ).results;
    const copy = hits.find((hit) => hit.name === 'fs__copy_file');
    expect(copy).toMatchObject({
      callable: false,
      reason: 'blocked in plan mode: mode plan denies the action class worktreeWrite',
    });
    const listed = await call('list_my_tools', { server: 'fs' });
    expect(resultText(listed)).toContain('fs__read_file');
    expect(resultText(listed)).not.toContain('fs__copy_file');
  });
});

describe('exit_plan_mode', () => {
  it('declined, keeps the session in plan mode', async () => {
    const session = await elicitingClient('plan', 'decline');
    const answer = await session.call('exit_plan_mode', { plan: 'copy notes.txt to copy.txt' });
    expect(answer.isError).toBe(true);
    expect(resultText(answer)).toMatch(/declined by the user/);
    expect(session.asked[0]).toMatch(/local:.+ wants to run exit_plan_mode \(server toolmesh\) in plan mode/);
    expect(session.asked[0]).toContain('copy notes.txt to copy.txt');
    expect(
      (await session.call('fs__copy_file', { source: 'notes.txt', destination: 'copy.txt' })).isError,
    ).toBe(true);
  });

  it('approved, switches the session to chat and tells the client its tools changed', async () => {
    const session = await elicitingClient('plan', 'accept');
    let listChanged = 0;
    session.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++;
    });
    const answer = await session.call('exit_plan_mode', { plan: 'copy notes.txt to copy.txt' });
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toEqual({ mode: 'chat', changed: true });
    await until(() => listChanged > 0);
    const copied = await session.call('fs__copy_file', { source: 'notes.txt', destination: 'copy.txt' });
    expect(copied.isError).toBeFalsy();
    expect(existsSync(path.join(root, 'copy.txt'))).toBe(true);
    // Another plan session is still in plan: the mode belongs to the session.
    const other = await harness.connect({ mode: 'plan' });
    expect(
      (await other.call('fs__copy_file', { source: 'notes.txt', destination: 'copy2.txt' })).isError,
    ).toBe(true);
  });

  it('is refused outside a mode it can leave', async () => {
    const { call } = await harness.connect({ mode: 'chat' });
    const answer = await call('exit_plan_mode', { plan: 'anything' });
    expect(answer.isError).toBe(true);
    expect(resultText(answer)).toMatch(/in chat mode, which exit_plan_mode does not leave/);
  });
});

describe('a tool that requires approval', () => {
  it('runs when the elicitation-capable client accepts, with the tool, server, arguments and reason shown', async () => {
    const session = await elicitingClient('chat', 'accept');
    const answer = await session.call('fixture__echo', { text: 'ship it' });
    expect(answer.isError).toBeFalsy();
    expect(resultText(answer)).toBe('fixture: ship it');
    expect(session.asked[0]).toMatch(/fixture__echo \(server fixture\)/);
    expect(session.asked[0]).toMatch(
      /Why approval is needed: fixture__echo requires approval for every call/,
    );
    expect(session.asked[0]).toContain('text: "ship it"');
  });

  it('does not run when the client declines or cancels', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const session = await elicitingClient('chat', action);
      const answer = await session.call('fixture__echo', { text: 'ship it' });
      expect(answer.isError).toBe(true);
      expect(resultText(answer)).toBe('fixture__echo was declined by the user; it did not run.');
    }
  });

  it('is refused without elicitation and without a connected approver', async () => {
    const { call } = await harness.connect({ mode: 'chat' });
    const answer = await call('fixture__echo', { text: 'ship it' });
    expect(answer.isError).toBe(true);
    expect(resultText(answer)).toMatch(/needs approval .* but no approver is connected, so it did not run/);
  });

  it('waits for a connected approver in another process and runs once approved', async () => {
    const approver = SqliteState.open(path.join(root, 'state.sqlite'));
    try {
      await approver.touchApprover('test-approver', Date.now());
      const { call } = await harness.connect({ mode: 'chat' });
      const pendingCall = call('fixture__echo', { text: 'after review' });
      let pending: Awaited<ReturnType<typeof approver.pendingApprovals>> = [];
      await until(async () => {
        pending = await approver.pendingApprovals(Date.now());
        return pending.length > 0;
      });
      expect(pending[0]).toMatchObject({
        tool: 'fixture__echo',
        server: 'fixture',
        arguments: { text: 'after review' },
      });
      await approver.decideApproval(
        pending[0]!.id,
        { status: 'approved', decidedBy: 'test-approver' },
        Date.now(),
      );
      const answer = await pendingCall;
      expect(answer.isError).toBeFalsy();
      expect(resultText(answer)).toBe('fixture: after review');

      const denied = call('fixture__echo', { text: 'not this' });
      await until(async () => (await approver.pendingApprovals(Date.now())).length > 0);
      const [next] = await approver.pendingApprovals(Date.now());
      await approver.decideApproval(
        next!.id,
        { status: 'denied', decidedBy: 'test-approver', reason: 'not today' },
        Date.now(),
      );
      const refused = await denied;
      expect(refused.isError).toBe(true);
      expect(resultText(refused)).toBe(
        'fixture__echo was denied by test-approver: not today; it did not run.',
      );
      const history = await approver.approvalHistory({ limit: 50 });
      expect(history.map((record) => record.status)).toEqual(
        expect.arrayContaining(['approved', 'denied', 'refused']),
      );
    } finally {
      await approver.close();
    }
  });
});

describe('modes from the config', () => {
  it('replace the built-in mode of the same name, whole', async () => {
    const { call } = await harness.connect({ mode: 'orchestrate' });
    const blocked = await call('fs__read_file', { path: 'notes.txt' });
    expect(resultText(blocked)).toMatch(
      /^fs__read_file is blocked in orchestrate mode: mode orchestrate denies tools matching "fs__read_file"/,
    );
    // The built-in orchestrate denied work-tree writes; this one does not.
    const copied = await call('fs__copy_file', { source: 'notes.txt', destination: 'by-orchestrate.txt' });
    expect(copied.isError).toBeFalsy();
  });

  it('add modes whose confirm rules put calls to a person', async () => {
    const declining = await elicitingClient('careful', 'decline');
    const declined = await declining.call('fs__copy_file', {
      source: 'notes.txt',
      destination: 'careful.txt',
    });
    expect(resultText(declined)).toBe('fs__copy_file was declined by the user; it did not run.');
    expect(declining.asked[0]).toMatch(/mode careful asks for approval of the action class worktreeWrite/);
    expect(existsSync(path.join(root, 'careful.txt'))).toBe(false);
    const accepting = await elicitingClient('careful', 'accept');
    expect((await accepting.call('fs__read_file', { path: 'notes.txt' })).isError).toBeFalsy();
    expect(accepting.asked).toHaveLength(0);
    expect(
      (await accepting.call('fs__copy_file', { source: 'notes.txt', destination: 'careful.txt' })).isError,
    ).toBeFalsy();
    expect(existsSync(path.join(root, 'careful.txt'))).toBe(true);
  });
});

describe('todo lists', () => {
  it('are replaced whole by todo_write and read back by todo_read, per session, in every mode', async () => {
    const first = await harness.connect({ mode: 'plan' });
    const second = await harness.connect({ mode: 'review' });
    const todos = [
      { content: 'Read the parser', status: 'completed' },
      { content: 'Write the plan', status: 'in_progress', activeForm: 'Writing the plan' },
    ];
    expect((await first.call('todo_write', { todos })).isError).toBeFalsy();
    expect((await first.call('todo_read', {})).structuredContent).toEqual({ todos });
    expect((await second.call('todo_read', {})).structuredContent).toEqual({ todos: [] });
    await first.call('todo_write', { todos: [{ content: 'Only this', status: 'pending' }] });
    expect(resultText(await first.call('todo_read', {}))).toBe('[ ] Only this');
    const bad = await first.call('todo_write', { todos: [{ content: 'x', status: 'doing' }] });
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toMatch(/status/);
  });
});
