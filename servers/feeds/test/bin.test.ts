import { execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connectHttpClient, spawnStdioClient, toolExpectations } from '@toolmesh/core/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FeedServer, startFeedServer } from './feed-server.js';
import { tempDir } from './fixture.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const run = promisify(execFile);
let dir: string;
let server: FeedServer;

beforeAll(async () => {
  dir = tempDir('toolmesh-feeds-bin-');
  server = await startFeedServer();
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function alive(pid: number | undefined): boolean {
  try {
    process.kill(pid as number, 0);
    return true;
  } catch {
    return false;
  }
}

async function exited(pid: number | undefined): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return !alive(pid);
}

describe('toolmesh-feeds over real stdio', () => {
  it('serves the tools with --db and --allow-private-network, keeps state in the file, and exits with its client', async () => {
    const db = path.join(dir, 'stdio.db');
    const client = await spawnStdioClient(process.execPath, [
      BIN,
      '--db',
      db,
      '--allow-private-network',
      '--log-level',
      'debug',
    ]);
    expect((await client.client.listTools()).tools).toHaveLength(14);
    const added = await toolExpectations(client).ok<{ feed: { id: number }; newArticles: number }>(
      'add_feed',
      {
        url: `${server.url}/fixtures/atom.xml`,
      },
    );
    expect(added.newArticles).toBe(2);
    const refreshed = await toolExpectations(client).ok<{ totals: { notModified: number } }>('refresh_feeds');
    expect(refreshed.totals.notModified).toBe(1);
    const digest = await toolExpectations(client).ok<{ ids: number[] }>('get_unread_digest');
    await toolExpectations(client).ok('mark_articles_read', { article_ids: digest.ids });
    expect((await client.call('get_article', { article_id: 999 })).isError).toBe(true);
    expect(client.stderr()).toMatch(/feeds in .*stdio\.db; background refresh on; private network allowed/);
    await client.close();
    expect(await exited(client.pid)).toBe(true);
    const check = new Database(db, { readonly: true });
    expect(check.prepare('SELECT title, read FROM articles ORDER BY id').all()).toEqual([
      { title: 'Compilers & you', read: 1 },
      { title: 'Nanoseconds', read: 1 },
    ]);
    check.close();
  });

  it('refuses the loopback test server without --allow-private-network', async () => {
    const client = await spawnStdioClient(process.execPath, [
      BIN,
      '--db',
      path.join(dir, 'guarded.db'),
      '--no-schedule',
    ]);
    const result = await client.call('add_feed', { url: `${server.url}/fixtures/atom.xml` });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/loopback address/);
    expect(client.stderr()).not.toMatch(/background refresh on/);
    await client.close();
  });

  it('serves Streamable HTTP and prints the client config snippets', async () => {
    const child = spawn(
      process.execPath,
      [BIN, '--db', path.join(dir, 'http.db'), '--transport', 'http', '--port', '0', '--no-schedule'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        const found = /listening on (http:\/\/\S+)/.exec(stderr);
        if (found) resolve(found[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    expect(stderr).toContain(`toolmesh-feeds is serving MCP at ${url}`);
    expect(stderr).toContain(`claude mcp add --transport http toolmesh-feeds ${url}`);
    const client = await connectHttpClient(url);
    expect((await client.client.listTools()).tools).toHaveLength(14);
    await client.close();
    child.kill('SIGTERM');
    expect(await exited(child.pid)).toBe(true);
  });

  it('prints help and refuses bad flags', async () => {
    const help = await run(process.execPath, [BIN, '--help']);
    expect(help.stderr).toMatch(/--allow-private-network[\s\S]*--no-schedule[\s\S]*--db FILE/);
    const bad = await run(process.execPath, [BIN, '--nope']).catch((error) => error);
    expect(bad.code).toBe(2);
  });
});
