import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { TOOLMESH_BIN } from './harness.js';

const exec = promisify(execFile);

const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-first-party-state-')));
const project = path.join(scratch, 'project');
const data = path.join(scratch, 'data');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `toolmesh call` with no config: every installed first-party server, sandboxed where bwrap works. */
async function call(tool: string, args: Record<string, unknown>): Promise<string> {
  await exec('mkdir', ['-p', project]);
  const { stdout } = await exec(process.execPath, [TOOLMESH_BIN, 'call', tool, JSON.stringify(args)], {
    cwd: project,
    env: { ...process.env, TOOLMESH_DATA_DIR: data },
    timeout: 120_000,
  });
  return stdout;
}

describe('state of the first-party servers under toolmesh serve', () => {
  // Each server is shown only <data>/<server>/ inside its sandbox; a database anywhere else in
  // the data directory would be written to the sandbox's private filesystem and lost on exit.
  it('keeps each stateful server’s database in its own data folder, across runs', async () => {
    expect(
      await call('memory__propose_fact', { domain: 'ops', statement: 'Deploys happen on Fridays' }),
    ).toMatch(/Stored F-1/);
    expect(await call('memory__search_memory', { query: 'deploys Fridays', mode: 'keyword' })).toMatch(
      /Deploys happen on Fridays/,
    );
    await call('tickets__list_tickets', {});
    await call('feeds__list_feeds', {});
    for (const [server, file] of [
      ['memory', 'memory.db'],
      ['tickets', 'tickets.db'],
      ['feeds', 'feeds.db'],
    ]) {
      expect(existsSync(path.join(data, server!, file!)), `${server}/${file}`).toBe(true);
    }
    // Four toolmesh processes, the first starting every first-party server: a busy machine needs long.
  }, 120_000);
});
