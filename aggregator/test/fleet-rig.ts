// What the fleet tests share: a config of their own (a Redis key prefix and, when asked, a
// PostgreSQL schema per run), `toolmesh serve --transport http` replicas started from the built
// bin, balanced sessions, and a 2025 client that carries a session on by its id alone.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolClient } from '@toolmesh/core/testing';
import { resultText } from '@toolmesh/core/testing';
import { Balancer, type BalancerPolicy } from './fleet-balancer.js';
import { fixture, serveToolmesh, TOOLMESH_BIN } from './harness.js';
import { deleteKeys, dropSchema, POSTGRES_URL, REDIS_URL } from './state-backends.js';

export { POSTGRES_URL, REDIS_URL };
export const ECHO_SERVER = fileURLToPath(new URL('../../test/bench/echo-server.mjs', import.meta.url));

export type Replica = ReturnType<typeof serveToolmesh> & { origin: string };

export interface FleetRigOptions {
  /** The config beside `state` (mcpServers, toolPolicy, fleet…). */
  config: Record<string, unknown>;
  /** The Redis every replica shares: the machine's, or a test's private one. */
  redisUrl?: string;
  /** Keep the audit in PostgreSQL, in a schema of this run. */
  postgres?: boolean;
}

/** Retries `attempt` until it resolves (a condition, not a delay); rejects with the last error after `withinMs`. */
export async function eventually<T>(attempt: () => Promise<T>, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

export async function waitFor(condition: () => Promise<boolean>, withinMs: number, what: string) {
  await eventually(async () => {
    if (!(await condition())) throw new Error(`still waiting: ${what}`);
  }, withinMs);
}

/**
 * The config of the fleets whose replicas die or lose Redis while calls wait: echo, and the fixture
 * server, whose write_marker waits for a person's approval (for five minutes: longer than any test).
 */
export function approvalFleetConfig(auth: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mcpServers: {
      echo: { command: process.execPath, args: [ECHO_SERVER] },
      fx: fixture('fx'),
    },
    toolPolicy: { 'fx__*': { actions: ['read'] }, fx__write_marker: { requiresApproval: true } },
    approvalTimeoutMs: 300_000,
    auth: { ...auth, requestsPerMinute: 10_000_000 },
  };
}

export interface WaitingApproval {
  id: string;
  tool: string;
  arguments: Record<string, unknown>;
}

/** The approvals waiting, as the approver `token` reads them on `replica`: asking makes it a connected approver. */
export async function waitingApprovals(replica: Replica, token: string): Promise<WaitingApproval[]> {
  const answer = await fetch(`${replica.origin}/approvals`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!answer.ok) throw new Error(`GET /approvals: ${answer.status} ${await answer.text()}`);
  return ((await answer.json()) as { approvals: WaitingApproval[] }).approvals;
}

/** The id of the waiting approval `match` picks, once there is one. */
export async function approvalAsked(
  replica: Replica,
  token: string,
  match: (approval: WaitingApproval) => boolean,
  withinMs: number,
): Promise<string> {
  let id = '';
  await waitFor(
    async () => {
      id = (await waitingApprovals(replica, token)).find(match)?.id ?? '';
      return id !== '';
    },
    withinMs,
    'the approval to be asked',
  );
  return id;
}

/** Approves approval `id` on `replica` as the approver `token`, signing as "reviewer". */
export function approve(replica: Replica, token: string, id: string): Promise<Response> {
  return fetch(`${replica.origin}/approvals/${id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ decision: 'approve', by: 'reviewer' }),
  });
}

/** One config, one Redis prefix (and PostgreSQL schema), any number of replicas of it. */
export class FleetRig {
  readonly folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-fleet-'));
  readonly prefix = `toolmesh-test-${randomBytes(4).toString('hex')}:`;
  readonly schema: string | undefined;
  readonly redisUrl: string;
  readonly configFile = path.join(this.folder, 'config.json');
  readonly replicas: Replica[] = [];
  /** The first start's local token, which every replica then reads from Redis. */
  token = '';

  constructor(options: FleetRigOptions) {
    this.redisUrl = options.redisUrl ?? REDIS_URL;
    this.schema = options.postgres
      ? `toolmesh_fleet_${process.pid}_${randomBytes(4).toString('hex')}`
      : undefined;
    mkdirSync(path.join(this.folder, 'data'));
    writeFileSync(
      this.configFile,
      JSON.stringify({
        ...options.config,
        state: {
          redis: this.redisUrl,
          redisPrefix: this.prefix,
          ...(options.postgres && { postgres: POSTGRES_URL }),
        },
      }),
    );
  }

  get env(): NodeJS.ProcessEnv {
    return {
      TOOLMESH_DATA_DIR: path.join(this.folder, 'data'),
      ...(this.schema && { TOOLMESH_POSTGRES_SCHEMA: this.schema }),
    };
  }

  /** A replica, once it listens; `extra` are more flags of `toolmesh serve`. */
  async start(extra: string[] = []): Promise<Replica> {
    const served = serveToolmesh(
      ['--config', this.configFile, '--transport', 'http', '--port', '0', ...extra],
      this.folder,
      this.env,
    );
    const url = await served.url;
    this.token = await served.token;
    const replica = { ...served, origin: new URL(url).origin };
    this.replicas.push(replica);
    return replica;
  }

  /** Starts `count` replicas: the first alone, as it makes the local token the others read. */
  async startMany(count: number): Promise<Replica[]> {
    const first = await this.start();
    const rest = await Promise.all(Array.from({ length: count - 1 }, () => this.start()));
    return [first, ...rest];
  }

  /** A token that may decide approvals, made as a person makes one. */
  async approverToken(name = 'reviewer'): Promise<string> {
    const made = await promisify(execFile)(
      process.execPath,
      [TOOLMESH_BIN, 'token', 'create', '--config', this.configFile, '--name', name, '--approver'],
      { env: { ...process.env, ...this.env } },
    );
    return made.stdout.split('\n').find((line) => line.startsWith('tm_')) as string;
  }

  async metric(replica: Replica, name: string): Promise<number> {
    const text = await (
      await fetch(`${replica.origin}/metrics`, { headers: { authorization: `Bearer ${this.token}` } })
    ).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith(name))
      .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
  }

  /** A metric summed over `replicas` (default: every replica started, dead ones left out). */
  async total(
    name: string,
    replicas = this.replicas.filter(
      (replica) => replica.child.exitCode === null && replica.child.signalCode === null,
    ),
  ): Promise<number> {
    const values = await Promise.all(replicas.map((replica) => this.metric(replica, name).catch(() => 0)));
    return values.reduce((a, b) => a + b, 0);
  }

  async health(replica: Replica): Promise<Record<string, unknown>> {
    const answer = await fetch(`${replica.origin}/health`, {
      headers: { authorization: `Bearer ${this.token}` },
    });
    return (await answer.json()) as Record<string, unknown>;
  }

  /**
   * Runs `body` with a balancer of `policy` in front of `replicas` and `count` clients connected
   * through it by `connect`; closes both after, however `body` ends.
   */
  async withBalancedClients<C extends ToolClient>(
    policy: BalancerPolicy,
    replicas: Replica[],
    count: number,
    connect: (url: string, token: string) => Promise<C>,
    body: (clients: C[], balancer: Balancer, url: string) => Promise<void>,
  ): Promise<void> {
    const balancer = new Balancer(
      replicas.map((replica) => replica.origin),
      policy,
    );
    const url = await balancer.listen();
    const clients: C[] = [];
    try {
      for (let i = 0; i < count; i++) clients.push(await connect(url, this.token));
      await body(clients, balancer, url);
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await balancer.close();
    }
  }

  /** A 2025 client that carries session `sessionId` on at `url` by its id, with this fleet's token. */
  resume(url: string, sessionId: string) {
    return resumeSession(url, sessionId, this.token);
  }

  async dispose(): Promise<void> {
    for (const replica of this.replicas) replica.child.kill('SIGKILL');
    await Promise.all(
      this.replicas.map(
        (replica) =>
          new Promise((resolve) => {
            if (replica.child.exitCode !== null || replica.child.signalCode !== null) resolve(undefined);
            else replica.child.once('exit', resolve);
          }),
      ),
    );
    await deleteKeys(this.prefix, this.redisUrl).catch(() => undefined);
    if (this.schema) await dropSchema(this.schema);
    rmSync(this.folder, { recursive: true, force: true });
  }
}

/** A 2025 client over the legacy `/sse` transport, `url` being an `/mcp` URL of the same host. */
export async function connectSse(url: string, token: string) {
  const client = new Client({ name: 'fleet-sse-test', version: '0.0.0' });
  await client.connect(
    new SSEClientTransport(new URL(url.replace(/\/mcp$/, '/sse')), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return {
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    listTools: () => client.listTools(),
    close: () => client.close(),
  };
}

/** Each client calls echo in a row until `total` calls were made (or `stop` says so); returns the failures. */
export async function echoLoad(clients: ToolClient[], total: number, stop?: () => boolean) {
  const failures: string[] = [];
  let made = 0;
  await Promise.all(
    clients.map(async (client, session) => {
      while (stop ? !stop() : made < total) {
        const n = made++;
        try {
          const result = await client.call('echo__echo', { text: `${session}.${n}` });
          if (result.isError || resultText(result) !== `${session}.${n}`)
            failures.push(`call ${n}: ${resultText(result)}`);
        } catch (error) {
          failures.push(`call ${n}: ${(error as Error).message}`);
        }
      }
    }),
  );
  return { failures, made };
}

/**
 * A 2025 client that carries on a session by its id, as a client does when its balancer sends it
 * elsewhere: raw JSON-RPC over fetch, no initialize.
 */
export function resumeSession(url: string, sessionId: string, token: string) {
  let id = 100;
  const post = async (method: string, params: Record<string, unknown>) => {
    const answer = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params }),
    });
    const text = await answer.text();
    if (!answer.ok) throw new Error(`HTTP ${answer.status}: ${text}`);
    const data = text.includes('data: ')
      ? (text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => JSON.parse(line.slice(6)))
          .find((message) => 'result' in message || 'error' in message) as Record<string, unknown>)
      : (JSON.parse(text) as Record<string, unknown>);
    return data;
  };
  return {
    call: (name: string, args: Record<string, unknown>) => post('tools/call', { name, arguments: args }),
    echo: async (text: string) => {
      const answer = await post('tools/call', { name: 'echo__echo', arguments: { text } });
      const result = answer.result as { content?: Array<{ text: string }> } | undefined;
      if (!result?.content) throw new Error(JSON.stringify(answer));
      return result.content[0]?.text;
    },
  };
}
