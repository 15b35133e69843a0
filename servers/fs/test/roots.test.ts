import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { intersectRoots } from '../src/files/roots.js';
import { type FsFixture, fsFixture } from './fixture.js';

function offerRoots(fx: FsFixture, folders: () => string[]) {
  fx.client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: folders().map((folder) => ({ uri: pathToFileURL(folder).href, name: path.basename(folder) })),
  }));
}

describe('intersectRoots', () => {
  it('keeps the deeper folder of each overlapping pair', () => {
    expect(intersectRoots(['/srv/app'], ['/srv/app/web', '/home/me'])).toEqual(['/srv/app/web']);
    expect(intersectRoots(['/srv/app/web'], ['/srv'])).toEqual(['/srv/app/web']);
    expect(intersectRoots(['/srv/data'], ['/srv/data-evil'])).toEqual([]);
  });
});

describe('MCP roots', () => {
  it('are followed when no root is configured, including their change notification', async () => {
    const fx = await fsFixture({ noRoots: true, client: { capabilities: { roots: { listChanged: true } } } });
    const first = path.join(fx.base, 'client-a');
    const second = path.join(fx.base, 'client-b');
    mkdirSync(first);
    mkdirSync(second);
    writeFileSync(path.join(first, 'a.txt'), 'from a');
    writeFileSync(path.join(second, 'b.txt'), 'from b');
    let offered = [first];
    // The handler is set after connecting, so the server asks again on the change notification.
    offerRoots(fx, () => offered);
    await fx.client.sendRootsListChanged();
    expect(await fx.ok('read_file', { path: 'a.txt' })).toMatchObject({ content: 'from a' });
    expect(await fx.fails('read_file', { path: path.join(second, 'b.txt') })).toMatch(/outside-roots/);
    offered = [second];
    await fx.client.sendRootsListChanged();
    expect(await fx.ok('read_file', { path: 'b.txt' })).toMatchObject({ content: 'from b' });
    await fx.close();
  });

  it('narrow the configured roots to their intersection', async () => {
    const fx = await fsFixture({ client: { capabilities: { roots: { listChanged: true } } } });
    fx.write('web/index.html', '<p>web</p>');
    fx.write('api/server.ts', 'api');
    offerRoots(fx, () => [path.join(fx.root, 'web'), fx.outside]);
    await fx.client.sendRootsListChanged();
    expect(await fx.ok('read_file', { path: path.join(fx.root, 'web', 'index.html') })).toMatchObject({
      content: '<p>web</p>',
    });
    expect(await fx.fails('read_file', { path: path.join(fx.root, 'api', 'server.ts') })).toMatch(
      /outside-roots/,
    );
    expect(await fx.fails('list_dir', { path: fx.outside })).toMatch(/outside-roots/);
    await fx.close();
  });

  it('narrow by real path: a root that is a symlink inside a configured root to a folder outside it gives nothing', async () => {
    const fx = await fsFixture({ client: { capabilities: { roots: { listChanged: true } } } });
    writeFileSync(path.join(fx.outside, 'secret.txt'), 'outside the root');
    symlinkSync(fx.outside, path.join(fx.root, 'link'));
    offerRoots(fx, () => [path.join(fx.root, 'link')]);
    await fx.client.sendRootsListChanged();
    expect(await fx.fails('read_file', { path: 'secret.txt' })).toMatch(
      /no_roots|None of the client's roots/,
    );
    expect(await fx.fails('read_file', { path: path.join(fx.outside, 'secret.txt') })).toMatch(
      /no_roots|None of the client's roots/,
    );
    await fx.close();
  });

  it('tell the model what to do when there is no root at all', async () => {
    const fx = await fsFixture({ noRoots: true });
    expect(await fx.fails('list_dir', { path: '.' })).toMatch(/started without --root.*--root DIR/);
    await fx.close();
  });
});

describe('--read-only', () => {
  it('registers only the reading tools', async () => {
    const fx = await fsFixture({ readOnly: true });
    const { tools } = await fx.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'checkpoint_read',
        'list_dir',
        'read_file',
        'search_files',
        'search_text',
        'stat_file',
        'view_image',
      ].sort(),
    );
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);
    await fx.close();
  });
});
