import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { connectHttpClient, resultText } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenHash } from '../src/auth/token-secret.js';
import {
  fixture,
  type Harness,
  type ServedToolmesh,
  serveToolmesh,
  startHarness,
  TOOLMESH_BIN,
  until,
} from './harness.js';

// A token written into the config by hash, the way an operator deploys one.
const CONFIG_TOKEN = 'tm_configured-token-for-the-review-bot-0000000000';
const RATE_PER_MINUTE = 120;
const MAX_BODY_BYTES = 8192;

let scratch: Harness;
let dataDir: string;
let configFile: string;
let serving: ServedToolmesh;
let url: string;
let ownToken: string;

function toolmesh(...args: string[]) {
  const run = spawnSync(process.execPath, [TOOLMESH_BIN, ...args], {
    cwd: scratch.folder,
    env: { ...process.env, TOOLMESH_DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

/** A token made by `toolmesh token create`, as printed: the line that starts with tm_. */
function createToken(...flags: string[]): string {
  const made = toolmesh('token', 'create', '--config', configFile, ...flags);
  expect(made.code, made.out + made.err).toBe(0);
  return made.out.split('\n').find((line) => line.startsWith('tm_')) as string;
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
};

function post(
  headers: Record<string, string | undefined>,
  body: string = JSON.stringify(initialize),
  at = url,
) {
  return fetch(at, {
    method: 'POST',
    headers: Object.fromEntries(
      Object.entries({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    body,
  });
}

async function errorOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { message: string } }).error.message;
}

beforeAll(async () => {
  scratch = await startHarness({});
  dataDir = path.join(scratch.folder, 'data');
  mkdirSync(dataDir);
  for (const id of ['web', 'api']) mkdirSync(path.join(scratch.folder, id));
  configFile = path.join(scratch.folder, 'toolmesh.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: { fixture: fixture('fixture') },
      workspaces: { web: { roots: ['web'] }, api: { roots: ['api'] } },
      auth: {
        requestsPerMinute: RATE_PER_MINUTE,
        tokens: [{ name: 'review-bot', sha256: tokenHash(CONFIG_TOKEN), modes: ['review'] }],
      },
      http: { maxBodyBytes: MAX_BODY_BYTES },
    }),
  );
  // With a token in the config, no token is made at start: the operator's own comes from the CLI.
  ownToken = createToken('--name', 'operator', '--approver');
  serving = serveToolmesh(['--config', configFile, '--transport', 'http', '--port', '0'], scratch.folder, {
    TOOLMESH_DATA_DIR: dataDir,
  });
  url = await serving.url;
});
afterAll(async () => {
  serving?.child.kill('SIGTERM');
  await scratch.close();
});

describe('the token made at first start', () => {
  it('is made when no token exists, printed in the client snippet, kept 0600, stored as a hash, and shown again', async () => {
    const fresh = path.join(scratch.folder, 'fresh-data');
    const tokenless = path.join(scratch.folder, 'tokenless.json');
    writeFileSync(tokenless, JSON.stringify({ mcpServers: { fixture: fixture('fixture') } }));
    const start = () =>
      serveToolmesh(['--config', tokenless, '--transport', 'http', '--port', '0'], scratch.folder, {
        TOOLMESH_DATA_DIR: fresh,
      });
    const first = start();
    try {
      const token = await first.token;
      expect(token).toMatch(/^tm_[\w-]{43}$/);
      expect(first.stderr()).toContain(`"Authorization": "Bearer ${token}"`);
      expect(first.stderr()).toContain(`--header "Authorization: Bearer ${token}"`);
      expect(statSync(path.join(fresh, 'aggregator', 'local-token')).mode & 0o777).toBe(0o600);
      const store = path.join(fresh, 'aggregator', 'tokens.json');
      expect(statSync(store).mode & 0o777).toBe(0o600);
      expect(readFileSync(store, 'utf8')).not.toContain(token);
      expect(readFileSync(store, 'utf8')).toContain(tokenHash(token));
      const client = await first.connect();
      expect(resultText(await client.call('fixture__whoami'))).toBe('local');
      await client.close();
      first.child.kill('SIGTERM');
      const second = start();
      expect(await second.token).toBe(token);
      second.child.kill('SIGTERM');
    } finally {
      first.child.kill('SIGKILL');
    }
  });

  it('is not made when tokens are configured', () => {
    expect(serving.stderr()).not.toMatch(/Bearer tm_/);
    expect(serving.stderr()).toMatch(/send a token made by `toolmesh token create`/);
  });

  it('lets the downstream server learn who calls', async () => {
    const client = await connectHttpClient(url, { token: ownToken });
    expect(resultText(await client.call('fixture__whoami'))).toBe('operator');
    await client.close();
  });
});

describe('requests without a valid token', () => {
  it('get 401 saying how to get a token', async () => {
    for (const authorization of [undefined, 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer tm_never-issued']) {
      const response = await post({ authorization });
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
      expect(await errorOf(response)).toMatch(/toolmesh token create/);
    }
    expect(serving.child.exitCode).toBeNull();
  });

  it('get 401 once the token is revoked, even on a session it opened', async () => {
    const token = createToken('--name', 'short-lived');
    const client = await connectHttpClient(url, { token });
    expect(resultText(await client.call('fixture__whoami'))).toBe('short-lived');
    const revoked = toolmesh('token', 'revoke', 'short-lived');
    expect(revoked.code, revoked.out).toBe(0);
    await expect(client.call('fixture__whoami')).rejects.toThrow(/401|not valid/);
    await client.close().catch(() => undefined);
    expect(toolmesh('token', 'revoke', 'short-lived').code).toBe(1);
  });
});

describe('a token outside its rights', () => {
  it('gets 403 for a mode it may not use, naming the ones it may', async () => {
    const response = await post({ authorization: `Bearer ${CONFIG_TOKEN}` }, undefined, `${url}/plan`);
    expect(response.status).toBe(403);
    expect(await errorOf(response)).toMatch(/review-bot may not use plan mode; it may use review/);
    const client = await connectHttpClient(`${url}/review`, { token: CONFIG_TOKEN });
    expect(resultText(await client.call('fixture__whoami'))).toBe('review-bot');
    await client.close();
  });

  it('gets 403 for a workspace it may not use, and is bound to its only one', async () => {
    const token = createToken('--name', 'web-only', '--workspace', 'web');
    const refused = await post({ authorization: `Bearer ${token}` }, undefined, `${url}?workspace=api`);
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toMatch(/web-only may not use workspace api; it may use web/);
    const client = await connectHttpClient(url, { token });
    const listed = (await client.call('list_workspaces')).structuredContent as {
      workspaces: { id: string }[];
    };
    expect(listed.workspaces.map((workspace) => workspace.id)).toEqual(['web']);
    await client.close();
  });

  it('cannot use a session another token opened', async () => {
    const client = await connectHttpClient(url, { token: ownToken });
    const sessionId = (client.client.transport as { sessionId?: string }).sessionId as string;
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const hijack = await post({ authorization: `Bearer ${CONFIG_TOKEN}`, 'mcp-session-id': sessionId }, call);
    expect(hijack.status).toBe(403);
    expect(await errorOf(hijack)).toMatch(/opened with another token/);
    await client.close();
  });

  it('may not decide approvals unless it is an approver', async () => {
    const base = url.replace(/\/mcp$/, '');
    const refused = await fetch(`${base}/approvals`, {
      headers: { authorization: `Bearer ${CONFIG_TOKEN}` },
    });
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toMatch(/--approver/);
    expect((await fetch(`${base}/approvals`)).status).toBe(401);
    const allowed = await fetch(`${base}/approvals`, { headers: { authorization: `Bearer ${ownToken}` } });
    expect(allowed.status).toBe(200);
  });
});

describe('what bad input gets', () => {
  it('a foreign Origin gets 403, a loopback one is served', async () => {
    const foreign = await post({ authorization: `Bearer ${ownToken}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await errorOf(foreign)).toMatch(/Origin https:\/\/evil.example is not allowed/);
    const local = await post({ authorization: `Bearer ${ownToken}`, origin: 'http://localhost:5173' });
    expect(local.status).toBe(200);
  });

  it('an oversized body gets 413 before it is parsed, a malformed one a parse error, and serving goes on', async () => {
    const client = await connectHttpClient(url, { token: ownToken });
    const huge = JSON.stringify({
      ...initialize,
      params: { ...initialize.params, pad: 'x'.repeat(MAX_BODY_BYTES) },
    });
    const tooLarge = await post({ authorization: `Bearer ${ownToken}` }, huge);
    expect(tooLarge.status).toBe(413);
    expect(await errorOf(tooLarge)).toMatch(/larger than this server accepts \(8192 bytes\)/);
    const malformed = await post(
      { authorization: `Bearer ${ownToken}` },
      '{"jsonrpc": "2.0", "id": 1, "method": ',
    );
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect(resultText(await client.call('fixture__echo', { text: 'still here' }))).toBe(
      'fixture: still here',
    );
    await client.close();
  });

  it('an unknown tool gets a protocol error, arguments that fail the schema an isError result, each saying what is wrong', async () => {
    const client = await connectHttpClient(url, { token: ownToken });
    await expect(client.call('fixture__nope')).rejects.toThrow(
      /Unknown tool "fixture__nope".*search_tool_bm25/,
    );
    const invalid = await client.call('fixture__echo', { text: 42 });
    expect(invalid.isError).toBe(true);
    expect(resultText(invalid)).toMatch(/expected string, received number at text/);
    expect(resultText(await client.call('fixture__echo', { text: 'fine' }))).toBe('fixture: fine');
    await client.close();
  });

  it('a flood beyond the rate limit gets 429 with Retry-After, for that token only', async () => {
    const token = createToken('--name', 'flooder');
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    // The bucket refills at RATE_PER_MINUTE / 60 a second, so on a loaded machine a flood of just
    // over the allowance can be slow enough to be served whole; twice the allowance cannot.
    for (let sent = 0; sent < RATE_PER_MINUTE * 2; sent++) {
      const response = await fetch(url.replace(/\/mcp$/, '/approvals'), {
        headers: { authorization: `Bearer ${token}` },
      });
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get('retry-after');
      await response.body?.cancel();
    }
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(5);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // Other tokens keep their own allowance.
    const client = await connectHttpClient(url, { token: ownToken });
    expect(resultText(await client.call('fixture__whoami'))).toBe('operator');
    await client.close();
  });

  it('/health says whether toolmesh is up to anyone, and which servers run only to a token', async () => {
    const health = await fetch(url.replace(/\/mcp$/, '/health'));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const detailed = await fetch(url.replace(/\/mcp$/, '/health'), {
      headers: { authorization: `Bearer ${ownToken}` },
    });
    expect(await detailed.json()).toMatchObject({
      status: 'ok',
      servers: [{ name: 'fixture', state: 'ready' }],
    });
  });

  it('a token limited to plan mode cannot leave it through exit_plan_mode', async () => {
    const token = createToken('--name', 'planbot', '--modes', 'plan');
    const client = await connectHttpClient(`${url}/plan`, { token });
    const asked = await client.call('exit_plan_mode', { plan: 'write the files' });
    expect(asked.isError).toBe(true);
    expect(resultText(asked)).toMatch(/may not use chat mode \(it may use plan\), so it stays in plan mode/);
    await client.close();
  });
});

describe('the audit log after the battery', () => {
  it('holds the calls that reached policy, under the identity that made them, and not the unknown tool', () => {
    const listed = toolmesh('audit', '--json', '--limit', '500');
    expect(listed.code, listed.err).toBe(0);
    const records = JSON.parse(listed.out) as { tool: string; identity: string; outcome: string }[];
    const seen = (tool: string, identity: string, outcome: string) =>
      records.some(
        (record) => record.tool === tool && record.identity === identity && record.outcome === outcome,
      );
    expect(seen('fixture__whoami', 'operator', 'ok')).toBe(true);
    expect(seen('fixture__whoami', 'review-bot', 'ok')).toBe(true);
    expect(seen('fixture__echo', 'operator', 'isError')).toBe(true);
    expect(seen('list_workspaces', 'web-only', 'ok')).toBe(true);
    expect(records.some((record) => record.tool === 'fixture__nope')).toBe(false);
  });
});

describe('toolmesh token', () => {
  it('shows a token once, lists tokens without secrets, and refuses modes and workspaces that do not exist', () => {
    const token = createToken(
      '--name',
      'ci-bot',
      '--workspace',
      'web',
      '--modes',
      'plan,review',
      '--approver',
    );
    const listed = toolmesh('token', 'list', '--config', configFile);
    expect(listed.out).toMatch(/ci-bot {2}modes plan,review; workspaces web; approver/);
    expect(listed.out).toMatch(/review-bot .*\(config\)/);
    expect(listed.out).not.toContain(token);
    expect(toolmesh('token', 'list', '--json').out).not.toContain(token);
    const typo = toolmesh('token', 'create', '--config', configFile, '--name', 'x', '--modes', 'plna');
    expect(typo.code).toBe(2);
    expect(typo.out).toMatch(/no mode named plna; the modes are chat, plan, review, orchestrate/);
    const configured = toolmesh('token', 'create', '--config', configFile, '--name', 'review-bot');
    expect(configured.code).toBe(2);
    expect(configured.out).toMatch(/auth.tokens has a token named review-bot already/);
    expect(toolmesh('token', 'create', '--name', 'anonymous').out).toMatch(/taken by toolmesh itself/);
    const twice = toolmesh('token', 'create', '--name', 'ci-bot');
    expect(twice.code).toBe(2);
    expect(twice.out).toMatch(/exists already/);
  });
});

describe('listening beyond loopback', () => {
  it('is refused without authentication, and without any token to accept', () => {
    const open = path.join(scratch.folder, 'open.json');
    writeFileSync(open, JSON.stringify({ mcpServers: {}, auth: { required: false } }));
    const refused = toolmesh(
      'serve',
      '--config',
      open,
      '--transport',
      'http',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
    );
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/refusing to listen on 0\.0\.0\.0 with auth\.required false/);
    const tokenless = path.join(scratch.folder, 'tokenless.json');
    writeFileSync(tokenless, JSON.stringify({ mcpServers: {} }));
    const empty = path.join(scratch.folder, 'empty-data');
    mkdirSync(empty);
    const none = spawnSync(
      process.execPath,
      [
        TOOLMESH_BIN,
        'serve',
        '--config',
        tokenless,
        '--transport',
        'http',
        '--host',
        '0.0.0.0',
        '--port',
        '0',
      ],
      {
        env: { ...process.env, TOOLMESH_DATA_DIR: empty },
        encoding: 'utf8',
        cwd: scratch.folder,
        timeout: 120_000,
      },
    );
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/refusing to listen on 0\.0\.0\.0: no token exists/);
  });
});

describe('a reload', () => {
  it('is refused when it gives a config token the name of one toolmesh token create made', async () => {
    const second = 'tm_a-second-credential-for-the-operator-name-000000';
    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: { fixture: fixture('fixture') },
        auth: { tokens: [{ name: 'operator', sha256: tokenHash(second) }] },
      }),
    );
    await until(() => /new config was not applied: token name operator is both/.test(serving.stderr()));
    expect((await post({ authorization: `Bearer ${second}` })).status).toBe(401);
    expect((await post({ authorization: `Bearer ${CONFIG_TOKEN}` }, undefined, `${url}/review`)).status).toBe(
      200,
    );
  });
});
