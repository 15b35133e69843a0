import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  connectHttpClient,
  resultText,
  type SpawnedClient,
  spawnStdioClient,
  toolExpectations,
} from '@toolmesh/core/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './fixture.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const run = promisify(execFile);
let dir: string;

beforeAll(() => {
  dir = tempDir('toolmesh-tickets-bin-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function exportOf(db: string, workspace: string): Promise<{ stdout: string }> {
  return run(process.execPath, [BIN, 'export', '--workspace', workspace, '--db', db]);
}

describe('toolmesh-tickets over real stdio', () => {
  it('serves the tools with --db, --workspace and --agent, and keeps state in the file', async () => {
    const db = path.join(dir, 'stdio.db');
    const server = await spawnStdioClient(process.execPath, [
      BIN,
      '--db',
      db,
      '--workspace',
      'w1',
      '--agent',
      'bot',
      '--log-level',
      'debug',
    ]);
    expect((await server.client.listTools()).tools).toHaveLength(17);
    const created = await toolExpectations(server).ok<{ tickets: { id: string; author: string }[] }>(
      'create_ticket',
      {
        tickets: [{ title: 'over stdio' }],
      },
    );
    expect(created.tickets[0]).toMatchObject({ id: 'T-1', author: 'bot' });
    await toolExpectations(server).ok('comment_on_ticket', { ticket: 'T-1', body: 'hello' });
    expect((await server.call('get_ticket', { ticket: 'T-7' })).isError).toBe(true);
    expect(server.stderr()).toMatch(/tickets in .*stdio\.db; workspaces w1/);
    await server.close();
    const check = new Database(db, { readonly: true });
    expect(check.prepare('SELECT title FROM tickets').all()).toEqual([{ title: 'over stdio' }]);
    check.close();
  });

  it('exports a workspace as JSON and imports it back into another file, unchanged', async () => {
    const db = path.join(dir, 'export.db');
    const server = await spawnStdioClient(process.execPath, [BIN, '--db', db, '--workspace', 'src']);
    await toolExpectations(server).ok('create_ticket', {
      tickets: [
        { title: 'parent', labels: ['x'], agent: 'ada' },
        { title: 'child', parent: 'T-1', description: 'body' },
      ],
    });
    await toolExpectations(server).ok('ticket_relation', {
      ticket: 'T-2',
      relation: 'blocked_by',
      other: 'T-1',
    });
    await toolExpectations(server).ok('comment_on_ticket', { ticket: 'T-2', body: 'findable words' });
    await toolExpectations(server).ok('ticket_pr_link', {
      ticket: 'T-1',
      pr: 'https://github.com/a/b/pull/1',
    });
    await server.close();
    const exported = JSON.parse((await exportOf(db, 'src')).stdout);
    expect(exported.tickets).toHaveLength(2);
    const file = path.join(dir, 'dump.json');
    writeFileSync(file, JSON.stringify(exported));
    const copy = path.join(dir, 'copy.db');
    const imported = await run(process.execPath, [BIN, 'import', file, '--workspace', 'src', '--db', copy]);
    expect(imported.stderr).toMatch(/imported 2 ticket/);
    expect(JSON.parse((await exportOf(copy, 'src')).stdout)).toEqual(exported);
    // From stdin, into another workspace of the same file.
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'import', '--workspace', 'dst', '--db', copy], {
        stdio: ['pipe', 'ignore', 'pipe'],
      });
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
      child.stdin.end(JSON.stringify(exported));
    });
    const dst = JSON.parse((await exportOf(copy, 'dst')).stdout);
    expect(
      dst.tickets.map((t: { workspace_id: string; title: string }) => [t.workspace_id, t.title]),
    ).toEqual([
      ['dst', 'parent'],
      ['dst', 'child'],
    ]);
    expect(dst.relations).toEqual(exported.relations);
    const searched = await spawnStdioClient(process.execPath, [BIN, '--db', copy, '--workspace', 'dst']);
    const hits = await toolExpectations(searched).ok<{ hits: { ticket: { id: string } }[] }>(
      'search_tickets',
      {
        query: 'findable',
      },
    );
    expect(hits.hits.map((h) => h.ticket.id)).toEqual(['T-2']);
    await searched.close();
    const again = await run(process.execPath, [
      BIN,
      'import',
      file,
      '--workspace',
      'src',
      '--db',
      copy,
    ]).catch((error) => error);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/T-1\) already exists in workspace "src"/);
  });

  it('refuses an export with a malformed ticket whole, naming the ticket, the field and what is expected', async () => {
    const db = path.join(dir, 'source.db');
    const server = await spawnStdioClient(process.execPath, [BIN, '--db', db, '--workspace', 'src']);
    await toolExpectations(server).ok('create_ticket', {
      tickets: [{ title: 'one' }, { title: 'two', parent: 'T-1' }, { title: 'three' }],
    });
    await toolExpectations(server).ok('comment_on_ticket', { ticket: 'T-3', body: 'noted' });
    await server.close();
    const exported = JSON.parse((await exportOf(db, 'src')).stdout);
    const target = path.join(dir, 'target.db');
    const importing = async (mutate: (data: typeof exported) => void) => {
      const data = structuredClone(exported);
      mutate(data);
      const file = path.join(dir, 'broken.json');
      writeFileSync(file, JSON.stringify(data));
      return run(process.execPath, [BIN, 'import', file, '--workspace', 'dst', '--db', target]).catch(
        (error) => error,
      );
    };
    const ticketsIn = () => {
      const check = new Database(target, { readonly: true });
      const { n } = check.prepare('SELECT count(*) AS n FROM tickets').get() as { n: number };
      check.close();
      return n;
    };

    const badStatus = await importing((data) => {
      data.tickets[1].status = 'frozen';
    });
    expect(badStatus.code).toBe(1);
    expect(badStatus.stderr).toMatch(/nothing was imported/);
    expect(badStatus.stderr).toMatch(
      /ticket at index 1 \(T-2\): status: unknown status "frozen": use one of backlog, todo/,
    );
    expect(ticketsIn()).toBe(0);

    const several = await importing((data) => {
      data.tickets[0].title = 42;
      data.tickets[2].comments[0].createdAt = 'yesterday';
      data.tickets[2].priority = 'P9';
    });
    expect(several.code).toBe(1);
    expect(several.stderr).toMatch(/ticket at index 0 \(T-1\): title: .*expected string/);
    expect(several.stderr).toMatch(
      /ticket at index 2 \(T-3\): comments\[0\]\.createdAt: expected an ISO date-time/,
    );
    expect(several.stderr).toMatch(/ticket at index 2 \(T-3\): priority: unknown priority "P9"/);
    expect(ticketsIn()).toBe(0);

    const dangling = await importing((data) => {
      data.tickets.splice(0, 1);
    });
    expect(dangling.stderr).toMatch(/ticket at index 0 \(T-2\): parent: T-1 is not in the file/);
    const noId = await importing((data) => {
      delete data.tickets[2].id;
    });
    expect(noId.stderr).toMatch(/ticket at index 2 \(no id\): id: .*expected string/);
    expect(ticketsIn()).toBe(0);

    // A ticket that clashes with one already there stops the whole import, earlier tickets included.
    const seeded = await spawnStdioClient(process.execPath, [BIN, '--db', target, '--workspace', 'dst']);
    await toolExpectations(seeded).ok('create_ticket', { tickets: [{ title: 'x' }, { title: 'y' }] });
    await seeded.close();
    const clash = await importing((data) => {
      data.tickets[0].id = 'T-9';
      data.tickets[1].parent = 'T-9';
      data.events = [];
    });
    expect(clash.stderr).toMatch(
      /ticket at index 1 \(T-2\) already exists in workspace "dst", so nothing was imported/,
    );
    expect(ticketsIn()).toBe(2);
    expect(JSON.parse((await exportOf(target, 'dst')).stdout).tickets).toHaveLength(2);
  });

  it('prints help and refuses bad flags', async () => {
    const help = await run(process.execPath, [BIN, '--help']);
    expect(help.stderr).toMatch(/--max-delegation-depth N[\s\S]*--db FILE/);
    const bad = await run(process.execPath, [BIN, '--nope']).catch((error) => error);
    expect(bad.code).toBe(2);
    const depth = await run(process.execPath, [
      BIN,
      '--max-delegation-depth',
      'x',
      '--db',
      path.join(dir, 'd.db'),
    ]).catch((error) => error);
    expect(depth.code).toBe(1);
    expect(depth.stderr).toMatch(/--max-delegation-depth must be a whole number/);
    const junk = path.join(dir, 'junk.json');
    writeFileSync(junk, '{"format": "something else"}');
    const refused = await run(process.execPath, [BIN, 'import', junk, '--db', path.join(dir, 'j.db')]).catch(
      (error) => error,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/not a toolmesh-tickets export/);
  });
});

describe('toolmesh-tickets over Streamable HTTP', () => {
  let child: ChildProcess;
  let url: string;
  let stdout = '';
  const db = () => path.join(dir, 'http.db');

  beforeAll(async () => {
    child = spawn(
      process.execPath,
      [BIN, '--db', db(), '--workspace', 'w1', '--workspace', 'w2', '--transport', 'http', '--port', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
    });
    let stderr = '';
    url = await new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
        const found = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (found) resolve(found[1] as string);
      });
      child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
    });
  });
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('serves one store to several concurrent SDK client sessions, per workspace', async () => {
    const [writer, reader] = await Promise.all([connectHttpClient(url), connectHttpClient(url)]);
    expect((await reader.client.listTools()).tools).toHaveLength(17);
    const created = await Promise.all(
      ['first', 'second', 'third'].map((title) =>
        writer.call('create_ticket', { workspace_id: 'w1', tickets: [{ title: `${title} over http` }] }),
      ),
    );
    for (const result of created) expect(result.isError, resultText(result)).toBeFalsy();
    const listed = await reader.call('list_tickets', { workspace_id: 'w1', sort: 'number' });
    expect((listed.structuredContent as { tickets: { id: string }[] }).tickets.map((t) => t.id)).toEqual([
      'T-1',
      'T-2',
      'T-3',
    ]);
    const other = await reader.call('list_tickets', { workspace_id: 'w2' });
    expect(other.structuredContent).toMatchObject({ total: 0, tickets: [] });
    const refused = await reader.call('get_ticket', { workspace_id: 'w3', ticket: 'T-1' });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toMatch(/w1.*w2/);
    await Promise.all([writer.close(), reader.close()]);
    expect(stdout).toBe('');
  });

  it('exits cleanly on SIGTERM, with every acknowledged write in the file', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const check = new Database(db(), { readonly: true });
    expect(check.prepare("SELECT count(*) AS n FROM tickets WHERE workspace = 'w1'").get()).toEqual({ n: 3 });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
  });
});

describe('two server processes on one file', () => {
  it('lose no update when both retry on expected_version conflicts', async () => {
    const db = path.join(dir, 'shared.db');
    const servers = await Promise.all(
      ['one', 'two'].map((agent) => spawnStdioClient(process.execPath, [BIN, '--db', db, '--agent', agent])),
    );
    const [first] = servers as [SpawnedClient, SpawnedClient];
    await toolExpectations(first).ok('create_ticket', { tickets: [{ title: 'counter', labels: [] }] });
    const rounds = 15;
    // Each process appends its own labels; a lost update would drop a label.
    await Promise.all(
      servers.map(async (server, who) => {
        for (let i = 0; i < rounds; i++) {
          for (;;) {
            const current = await toolExpectations(server).ok<{ labels: string[]; version: number }>(
              'get_ticket',
              {
                ticket: 'T-1',
              },
            );
            const result = await server.call('update_ticket', {
              ticket: 'T-1',
              labels: [...current.labels, `p${who}-${i}`],
              expected_version: current.version,
            });
            if (!result.isError) break;
            expect(JSON.stringify(result.content)).toMatch(/conflict/);
          }
        }
      }),
    );
    const final = await toolExpectations(first).ok<{ labels: string[]; version: number }>('get_ticket', {
      ticket: 'T-1',
    });
    expect(final.labels).toHaveLength(rounds * 2);
    expect(final.version).toBe(rounds * 2 + 1);
    const history = await toolExpectations(first).ok<{ events: { author: string }[] }>('ticket_history', {
      ticket: 'T-1',
      maxTokens: 64000,
    });
    expect(history.events).toHaveLength(rounds * 2 + 1);
    expect(new Set(history.events.map((e) => e.author))).toEqual(new Set(['one', 'two']));
    await Promise.all(servers.map((server) => server.close()));
  });
});
