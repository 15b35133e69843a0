import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config/load.js';
import { Policy } from '../src/policy/policy.js';
import { declaredFacts } from '../src/policy/tool-facts.js';

function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, inputSchema: { type: 'object' }, ...extra };
}

function declaring(name: string, actions: string[], more: Record<string, unknown> = {}): Tool {
  return tool(name, { _meta: { 'toolmesh/actions': actions, ...more } });
}

const builtIn = new Policy({ modes: {}, toolPolicy: {} });
const decide = (policy: Policy, mode: string, exposed: string, definition: Tool) =>
  policy.decide(mode, { exposed, tool: definition });

describe('tool facts', () => {
  it('takes the classes a toolmesh server declares in _meta', () => {
    expect(
      declaredFacts(declaring('write_file', ['worktreeWrite'], { 'toolmesh/requiresApproval': true })),
    ).toMatchObject({ actions: ['worktreeWrite'], requiresApproval: true, source: 'server' });
  });

  it('classifies third-party tools from their annotations, with the specification’s defaults', () => {
    expect(
      declaredFacts(tool('search', { annotations: { readOnlyHint: true, openWorldHint: false } })).actions,
    ).toEqual(['read']);
    expect(declaredFacts(tool('fetch', { annotations: { readOnlyHint: true } })).actions).toEqual([
      'read',
      'networkEgress',
    ]);
    expect(declaredFacts(tool('mystery')).actions).toEqual(['worktreeWrite', 'networkEgress']);
    // A malformed declaration is not trusted: the annotations decide.
    expect(declaredFacts(declaring('odd', ['teleport'])).source).toBe('annotations');
  });

  it('lets the config reclassify any tool by glob', () => {
    const policy = new Policy({
      modes: {},
      toolPolicy: { 'github__*': { actions: ['networkEgress'], requiresApproval: true } },
    });
    const facts = policy.factsOf({ exposed: 'github__create_issue', tool: tool('create_issue') });
    expect(facts).toMatchObject({ actions: ['networkEgress'], requiresApproval: true, source: 'config' });
  });
});

describe('the built-in modes', () => {
  const write = declaring('write_file', ['worktreeWrite']);
  const read = declaring('read_file', ['read']);
  const comment = declaring('comment_on_ticket', ['ticketWrite']);
  const create = declaring('create_ticket', ['ticketWrite']);
  const remember = declaring('remember', ['memoryWrite']);

  it('chat allows everything', () => {
    for (const definition of [write, read, comment, create])
      expect(decide(builtIn, 'chat', `x__${definition.name}`, definition).verdict).toBe('allow');
  });

  it('plan denies work-tree writes with the rule and the way out, and allows reads, comments and memory', () => {
    const blocked = decide(builtIn, 'plan', 'fs__write_file', write);
    expect(blocked).toMatchObject({
      verdict: 'deny',
      rule: 'mode plan denies the action class worktreeWrite',
    });
    expect(blocked.remedy).toMatch(/allowed in mode chat/);
    expect(blocked.remedy).toMatch(/exit_plan_mode/);
    expect(decide(builtIn, 'plan', 'fs__read_file', read).verdict).toBe('allow');
    expect(decide(builtIn, 'plan', 'tickets__comment_on_ticket', comment).verdict).toBe('allow');
    expect(decide(builtIn, 'plan', 'memory__remember', remember).verdict).toBe('allow');
    expect(decide(builtIn, 'plan', 'tickets__create_ticket', create)).toMatchObject({
      verdict: 'deny',
      rule: 'mode plan denies tools matching "create_ticket"',
    });
  });

  it('review allows ticket creation but no work-tree writes; orchestrate creates tickets and only reads', () => {
    expect(decide(builtIn, 'review', 'tickets__create_ticket', create).verdict).toBe('allow');
    expect(decide(builtIn, 'review', 'fs__write_file', write).verdict).toBe('deny');
    expect(decide(builtIn, 'orchestrate', 'tickets__create_ticket', create).verdict).toBe('allow');
    expect(decide(builtIn, 'orchestrate', 'tickets__comment_on_ticket', comment)).toMatchObject({
      verdict: 'deny',
      rule: expect.stringMatching(/allows only the action classes read, networkEgress/),
    });
  });

  it('keeps the always-allowed set in every mode, whatever it does', () => {
    const todo = declaring('todo_write', ['memoryWrite']);
    const graph = declaring('code_callers', ['read']);
    for (const mode of ['chat', 'plan', 'review', 'orchestrate']) {
      expect(decide(builtIn, mode, 'todo_write', todo).verdict).toBe('allow');
      expect(decide(builtIn, mode, 'code-graph__code_callers', graph).verdict).toBe('allow');
      expect(decide(builtIn, mode, 'memory__remember', remember).verdict).toBe('allow');
    }
  });

  it('asks for approval of a tool that requires it, in every mode that allows it', () => {
    const close = declaring('close_ticket', ['ticketWrite'], { 'toolmesh/requiresApproval': true });
    expect(decide(builtIn, 'chat', 'tickets__close_ticket', close)).toMatchObject({
      verdict: 'confirm',
      approvalReason: 'tickets__close_ticket requires approval for every call',
    });
  });

  it('names the configured modes when asked for one that does not exist', () => {
    expect(decide(builtIn, 'yolo', 'fs__read_file', read)).toMatchObject({
      verdict: 'deny',
      rule: 'mode yolo is not configured',
      remedy: 'Configured modes: chat, plan, review, orchestrate.',
    });
  });
});

describe('modes from the config', () => {
  it('replace a built-in mode and add new ones, with confirm rules', () => {
    const { config } = parseConfig({
      modes: {
        plan: { deny: { tools: ['*read_file'] } },
        careful: { confirm: { actions: ['worktreeWrite'] } },
      },
    });
    const policy = new Policy(config);
    const read = declaring('read_file', ['read']);
    expect(decide(policy, 'plan', 'fs__read_file', read).verdict).toBe('deny');
    // The replaced plan no longer denies writes: a mode is data, taken whole.
    expect(decide(policy, 'plan', 'fs__write_file', declaring('write_file', ['worktreeWrite'])).verdict).toBe(
      'allow',
    );
    expect(
      decide(policy, 'careful', 'fs__write_file', declaring('write_file', ['worktreeWrite'])),
    ).toMatchObject({
      verdict: 'confirm',
      approvalReason: 'mode careful asks for approval of the action class worktreeWrite',
    });
  });

  it('refuses an invalid mode config with the key and what is expected', () => {
    expect(() => parseConfig({ modes: { plan: { deny: { actions: ['teleport'] } } } })).toThrow(
      /modes\.plan\.deny\.actions\.0: Invalid option: expected one of "read"\|"worktreeWrite"/,
    );
    expect(() => parseConfig({ modes: { Plan: {} } })).toThrow(/modes\.Plan: a mode name is lowercase/);
    expect(() => parseConfig({ modes: { discovery: {} } })).toThrow(/endpoint names, not modes/);
    expect(() => parseConfig({ modes: { plan: { denny: {} } } })).toThrow(
      /modes\.plan: Unrecognized key: "denny"/,
    );
    expect(() => parseConfig({ defaultMode: 'yolo' })).toThrow(ConfigError);
    expect(() => parseConfig({ defaultMode: 'yolo' })).toThrow(
      /defaultMode: "yolo" is not a mode; the modes are chat, plan, review, orchestrate/,
    );
    expect(() => parseConfig({ modes: { draft: { exitTo: 'nowhere' } } })).toThrow(/modes\.draft\.exitTo/);
  });
});
