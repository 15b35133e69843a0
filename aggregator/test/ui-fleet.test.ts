// The Servers and Sessions pages of a fleet: two real `toolmesh serve` replicas on one Redis (a
// key prefix of this run), each running its own downstream servers and serving its own
// sessions; the pages of one show both.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listedSessionName } from '../src/ui/session-rows.js';
import {
  axeViolations,
  Browsers,
  openPage,
  pidOfFixture,
  SCREENSHOTS,
  signInWithForm,
} from './dashboard-browser.js';
import { fixture, serveToolmesh, until } from './harness.js';
import { deleteKeys, REDIS_URL } from './state-backends.js';
import { openLegacySession } from './ui-sessions-cases.js';

type Replica = ReturnType<typeof serveToolmesh>;

let folder: string;
let prefix: string;
let redis: Redis;
const replicas: Replica[] = [];
const browsers = new Browsers();

function startReplica(config: string): Replica {
  return serveToolmesh(['--config', config, '--transport', 'http', '--port', '0'], folder, {
    TOOLMESH_DATA_DIR: path.join(folder, 'data'),
    TOOLMESH_REDIS_PREFIX: prefix,
  });
}

/** The replica's id, as it tells balancers on /health. */
async function replicaId(replica: Replica): Promise<string> {
  const health = await fetch(new URL('/health', await replica.url));
  return ((await health.json()) as { replica: string }).replica;
}

async function exited(replica: Replica): Promise<void> {
  if (replica.child.exitCode !== null || replica.child.signalCode !== null) return;
  await new Promise((resolve) => replica.child.once('exit', resolve));
}

beforeAll(async () => {
  folder = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-ui-fleet-')));
  prefix = `toolmesh-test:${process.pid}_${randomBytes(4).toString('hex')}:`;
  redis = new Redis(REDIS_URL);
  const config = path.join(folder, 'toolmesh.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { fixture: fixture('fixture'), victim: fixture('victim') },
      state: { redis: REDIS_URL },
      fleet: { drainTimeoutMs: 1000 },
    }),
  );
  // The first start makes the local token in Redis; the second reads it.
  replicas.push(startReplica(config));
  await replicas[0]?.url;
  replicas.push(startReplica(config));
  await replicas[1]?.url;
});

afterEach(() => browsers.closeAll());

afterAll(async () => {
  await browsers.close();
  for (const replica of replicas) if (replica.child.exitCode === null) replica.child.kill('SIGTERM');
  // Gone before their keys are: a replica still running would write its heartbeat again.
  await Promise.all(replicas.map(exited));
  await deleteKeys(prefix);
  redis?.disconnect();
  rmSync(folder, { recursive: true, force: true });
});

describe('the Sessions page of a fleet', () => {
  it('lists the sessions of every replica, each with the replica that serves it', async () => {
    const [first, second] = replicas as [Replica, Replica];
    const ids = [await replicaId(first), await replicaId(second)];
    const token = await first.token;
    const here = await openLegacySession(await first.url, token, '2025-06-18');
    const there = await openLegacySession(await second.url, token, '2025-03-26');
    const page = await signInWithForm(await browsers.open(), new URL(await first.url).origin, token);
    try {
      await openPage(page, 'Sessions');
      // Another replica's session is named by a digest: its Mcp-Session-Id is for its client alone.
      const row = (id: string) => page.locator(`table.sessions tr[data-session="${listedSessionName(id)}"]`);
      await row(there).waitFor();
      expect(await page.content()).not.toContain(there);
      await expect(row(there).locator('td.replica').getAttribute('data-replica')).resolves.toBe(ids[1]);
      await expect(row(there).locator('td.revision').textContent()).resolves.toBe('2025-03-26');
      // The session served here, once, by toolmesh's id for it (the directory's entry is not shown again).
      const rows = page.locator('table.sessions tbody tr');
      const ours = rows.filter({ has: page.locator('td.replica', { hasText: '(this one)' }) });
      await expect(rows.count()).resolves.toBe(2);
      await expect(ours.locator('td.replica').textContent()).resolves.toBe(`${ids[0]} (this one)`);
      await expect(ours.locator('td.revision').textContent()).resolves.toBe('2025-06-18');
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'sessions-fleet.png') });
      // Ended on its replica, it leaves the page of the other.
      const ended = await fetch(await second.url, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}`, 'mcp-session-id': there },
      });
      expect(ended.status).toBe(200);
      await until(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (await row(there).count()) === 0;
      }, 30_000);
      await expect(rows.count()).resolves.toBe(1);
      await expect(ours.count()).resolves.toBe(1);
    } finally {
      await fetch(await first.url, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}`, 'mcp-session-id': here },
      });
    }
  });
});

describe('the Servers page of a fleet', () => {
  it("shows each replica's own servers, and drops a replica that left", async () => {
    const [first, second] = replicas as [Replica, Replica];
    const ids = [await replicaId(first), await replicaId(second)];
    // What a replica gone long ago left behind, with no heartbeat: never shown, and removed.
    const published = `${prefix}dashboard:servers`;
    await redis.hset(
      published,
      'r-gone',
      JSON.stringify({ at: 0, servers: [{ name: 'ghost', state: 'ready' }] }),
    );
    const signInLink = /dashboard: (http:\/\/\S+\/ui\/login\?code=\S+)/.exec(first.stderr())?.[1] as string;
    const context = await browsers.open();
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(signInLink);
    await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();

    const sections = page.locator('section[data-replica]');
    const shownReplicas = () =>
      sections.evaluateAll((found) => found.map((s) => s.getAttribute('data-replica')));
    // The replica that answers first, then the others.
    await until(async () => JSON.stringify(await shownReplicas()) === JSON.stringify(ids), 30_000);
    const server = (replica: string, name: string) =>
      page.locator(`section[data-replica="${replica}"] tr[data-server="${name}"]`);
    for (const id of ids)
      for (const name of ['fixture', 'victim'])
        await until(
          async () => (await server(id, name).locator('[data-state]').getAttribute('data-state')) === 'ready',
          30_000,
        );
    await expect(page.locator(`section[data-replica="${ids[0]}"] h2`).textContent()).resolves.toContain(
      'this one',
    );
    expect(await redis.hexists(published, 'r-gone')).toBe(0);

    // A server killed under the second replica restarts there; the first replica's runs on.
    process.kill(pidOfFixture(second.child.pid as number, 'victim'), 'SIGKILL');
    await until(
      async () =>
        (await server(ids[1] as string, 'victim')
          .locator('td.restarts')
          .textContent()) === '1',
      60_000,
    );
    await until(
      async () =>
        (await server(ids[1] as string, 'victim')
          .locator('[data-state]')
          .getAttribute('data-state')) === 'ready',
      60_000,
    );
    await expect(
      server(ids[0] as string, 'victim')
        .locator('td.restarts')
        .textContent(),
    ).resolves.toBe('0');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'servers-fleet.png') });

    // The second replica leaves (SIGTERM: it drains, then gives its heartbeat up).
    second.child.kill('SIGTERM');
    await exited(second);
    await until(async () => JSON.stringify(await shownReplicas()) === JSON.stringify([ids[0]]), 30_000);
  });
});
