import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { connectHttpClient, resultText, spawnStdioClient } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, type Harness, serveToolmesh, startHarness, TOOLMESH_BIN, until } from './harness.js';

const exec = promisify(execFile);

let scratch: Harness;
let serving: ReturnType<typeof serveToolmesh>;
let url: string;
let configFile: string;
/** A person's approver token; the client's own token (the first-start one) may not decide. */
let reviewerToken: string;

beforeAll(async () => {
  scratch = await startHarness({});
  configFile = path.join(scratch.folder, 'toolmesh.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: { fixture: fixture('fixture') },
      toolPolicy: { fixture__echo: { requiresApproval: true } },
    }),
  );
  const env = { TOOLMESH_DATA_DIR: path.join(scratch.folder, 'data') };
  serving = serveToolmesh(
    ['--config', configFile, '--transport', 'http', '--port', '0'],
    scratch.folder,
    env,
  );
  url = await serving.url;
  const made = await exec(
    process.execPath,
    [TOOLMESH_BIN, 'token', 'create', '--config', configFile, '--name', 'reviewer', '--approver'],
    { env: { ...process.env, ...env } },
  );
  reviewerToken = made.stdout.split('\n').find((line) => line.startsWith('tm_')) as string;
});
afterAll(async () => {
  serving.child.kill('SIGTERM');
  await scratch.close();
});

const base = () => url.replace(/\/mcp$/, '');
const authorized = async (headers: Record<string, string> = {}) => ({
  ...headers,
  authorization: `Bearer ${reviewerToken}`,
});

async function pendingApprovals(): Promise<
  { id: string; identity: string; tool: string; arguments: Record<string, unknown> }[]
> {
  const response = await fetch(`${base()}/approvals`, { headers: await authorized() });
  expect(response.status).toBe(200);
  return ((await response.json()) as { approvals: never[] }).approvals;
}

/** The first pending approval, once there is one. */
async function nextPending() {
  let pending: Awaited<ReturnType<typeof pendingApprovals>> = [];
  await until(async () => {
    pending = await pendingApprovals();
    return pending.length > 0;
  });
  return pending[0] as (typeof pending)[number];
}

describe('the HTTP approvals API', () => {
  it('lets a connected approver approve a call that then runs, and deny one that then does not', async () => {
    await pendingApprovals(); // being seen makes this test an approver
    const { call, close } = await serving.connect();
    try {
      const approvedCall = call('fixture__echo', { text: 'approved over HTTP' });
      const first = await nextPending();
      expect(first).toMatchObject({ tool: 'fixture__echo', arguments: { text: 'approved over HTTP' } });
      const decided = await fetch(`${base()}/approvals/${first.id}`, {
        method: 'POST',
        headers: await authorized({ 'content-type': 'application/json' }),
        body: JSON.stringify({ decision: 'approve', by: 'reviewer' }),
      });
      expect(decided.status).toBe(200);
      const approved = await approvedCall;
      expect(approved.isError).toBeFalsy();
      expect(resultText(approved)).toBe('fixture: approved over HTTP');

      const deniedCall = call('fixture__echo', { text: 'denied over HTTP' });
      const second = await nextPending();
      await fetch(`${base()}/approvals/${second.id}`, {
        method: 'POST',
        headers: await authorized({ 'content-type': 'application/json' }),
        body: JSON.stringify({ decision: 'deny', reason: 'not on a Friday', by: 'reviewer' }),
      });
      const denied = await deniedCall;
      expect(denied.isError).toBe(true);
      expect(resultText(denied)).toBe(
        'fixture__echo was denied by reviewer (reviewer): not on a Friday; it did not run.',
      );

      // A decision is final: deciding again is refused, and so is a malformed body.
      const again = await fetch(`${base()}/approvals/${second.id}`, {
        method: 'POST',
        headers: await authorized({ 'content-type': 'application/json' }),
        body: JSON.stringify({ decision: 'approve' }),
      });
      expect(again.status).toBe(404);
      expect(((await again.json()) as { error: string }).error).toMatch(/is not pending/);
      const malformed = await fetch(`${base()}/approvals/whatever`, {
        method: 'POST',
        headers: await authorized({ 'content-type': 'application/json' }),
        body: JSON.stringify({ decision: 'maybe' }),
      });
      expect(malformed.status).toBe(400);
      expect(((await malformed.json()) as { error: string }).error).toMatch(
        /"decision": "approve" \| "deny"/,
      );
    } finally {
      await close();
    }
  });

  it('names who asked, and refuses a decision by the token that asked or by one that is no approver', async () => {
    const { call, close } = await connectHttpClient(url, { token: reviewerToken });
    try {
      const waiting = call('fixture__echo', { text: 'my own call' });
      const pending = await nextPending();
      expect(pending).toMatchObject({ identity: 'reviewer', tool: 'fixture__echo' });
      const own = await fetch(`${base()}/approvals/${pending.id}`, {
        method: 'POST',
        headers: await authorized({ 'content-type': 'application/json' }),
        body: JSON.stringify({ decision: 'approve' }),
      });
      expect(own.status).toBe(403);
      expect(((await own.json()) as { error: string }).error).toMatch(/reviewer asked for this call/);
      const client = await fetch(`${base()}/approvals`, {
        headers: { authorization: `Bearer ${await serving.token}` },
      });
      expect(client.status).toBe(403);
      await exec(process.execPath, [TOOLMESH_BIN, 'approvals', 'deny', pending.id], {
        env: { ...process.env, TOOLMESH_DATA_DIR: path.join(scratch.folder, 'data') },
      });
      expect((await waiting).isError).toBe(true);
    } finally {
      await close();
    }
  });
});

describe('the mode of an HTTP session', () => {
  it('is set by the endpoint path', async () => {
    const plan = await serving.connect('/plan');
    const chat = await serving.connect();
    try {
      const planned = (await plan.client.listTools()).tools.map((tool) => tool.name);
      const chatted = (await chat.client.listTools()).tools.map((tool) => tool.name);
      // fixture__crash has no annotations, so it may change things: plan leaves it out.
      expect(chatted).toContain('fixture__crash');
      expect(planned).not.toContain('fixture__crash');
      expect(planned).toContain('exit_plan_mode');
      const blocked = await plan.call('fixture__crash', {});
      expect(resultText(blocked)).toMatch(/fixture__crash is blocked in plan mode/);
    } finally {
      await plan.close();
      await chat.close();
    }
  });

  it('must be a configured mode', async () => {
    await expect(serving.connect('/yolo')).rejects.toThrow(/No mode named yolo/);
  });
});

describe('the mode of a stdio session', () => {
  it('is set by --mode', async () => {
    const plan = await spawnStdioClient(
      process.execPath,
      [TOOLMESH_BIN, 'serve', '--config', configFile, '--mode', 'plan'],
      {
        cwd: scratch.folder,
      },
    );
    try {
      const names = (await plan.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('exit_plan_mode');
      expect(names).not.toContain('fixture__crash');
    } finally {
      await plan.close();
    }
  });

  it('refuses an unknown mode and an invalid mode config at start, saying what is wrong', async () => {
    const unknown = await exec(
      process.execPath,
      [TOOLMESH_BIN, 'serve', '--config', configFile, '--mode', 'yolo'],
      {
        cwd: scratch.folder,
      },
    ).catch((error) => error);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /--mode: no mode named yolo; the modes are chat, plan, review, orchestrate/,
    );
    const invalid = path.join(scratch.folder, 'invalid.json');
    writeFileSync(invalid, JSON.stringify({ modes: { plan: { deny: { actions: ['teleport'] } } } }));
    const refused = await exec(process.execPath, [TOOLMESH_BIN, 'serve', '--config', invalid], {
      cwd: scratch.folder,
    }).catch((error) => error);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/modes\.plan\.deny\.actions\.0: Invalid option/);
  });
});
