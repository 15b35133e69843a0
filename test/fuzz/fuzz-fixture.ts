import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FixtureValues } from './schema-arguments.js';

const SENTINEL_TEXT = 'nothing may touch this file\n';

const FILES: Record<string, string> = {
  'README.md': '# demo\n\nA small project the fuzz test works on.\n',
  'src/money.ts':
    'export class Money {\n  constructor(readonly cents: number) {}\n  multiplyByRate(rate: number): Money {\n    return new Money(Math.round(this.cents * rate));\n  }\n}\n\nexport function total(items: Money[]): Money {\n  return items.reduce((sum, item) => new Money(sum.cents + item.multiplyByRate(1).cents), new Money(0));\n}\n',
  'src/app.py':
    'from money import total\n\n\ndef main():\n    return total([])\n\n\nif __name__ == "__main__":\n    main()\n',
  'notes/todo.md': '- fix the build\n- ship it\n',
  'data.json': '{"a": [1, 2, 3]}\n',
};

/** A one-pixel PNG, so the image tool has a real image to read. */
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

function writeTree(folder: string): void {
  for (const [file, content] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    writeFileSync(path.join(folder, file), content);
  }
  writeFileSync(path.join(folder, 'pixel.png'), PIXEL);
}

/** A repository with two commits on main, a branch, a tag and an uncommitted change. */
function makeRepository(folder: string): string {
  mkdirSync(folder, { recursive: true });
  git(folder, 'init', '--quiet', '--initial-branch=main');
  git(folder, 'config', 'user.name', 'Fuzz Author');
  git(folder, 'config', 'user.email', 'fuzz@example.com');
  git(folder, 'config', 'commit.gpgsign', 'false');
  writeTree(folder);
  git(folder, 'add', '.');
  git(folder, 'commit', '--quiet', '-m', 'first');
  git(folder, 'tag', 'v1');
  git(folder, 'branch', 'feature');
  writeFileSync(path.join(folder, 'notes/todo.md'), '- fix the build\n- ship it\n- celebrate\n');
  git(folder, 'commit', '--quiet', '-am', 'second');
  writeFileSync(path.join(folder, 'README.md'), '# demo, changed\n');
  return git(folder, 'rev-parse', 'HEAD');
}

/** A loopback port nothing listens on: a URL to it is refused at once, with no DNS and no wait. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The folders one set of servers works in. */
export interface FuzzTree {
  work: string;
  repo: string;
  writableRepo: string;
}

export interface FuzzFixture extends FuzzTree {
  /** The temp root: everything the servers may touch is under it. */
  root: string;
  /** Another set of the folders, so servers that run at the same time (the aggregator's) do not share a repository's lock. */
  tree(owner: string): FuzzTree;
  /** HOME of every server: beside the root, so a write to `~` shows as an escape. */
  home: string;
  values: FixtureValues;
  dataDir(server: string): string;
  /** What changed outside the root since the fixture was made; empty when nothing did. */
  escapes(): string[];
  remove(): void;
}

export async function makeFuzzFixture(): Promise<FuzzFixture> {
  const outer = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-fuzz-')));
  const root = path.join(outer, 'root');
  const home = path.join(outer, 'home');
  const sentinel = path.join(outer, 'sentinel.txt');
  const makeTree = (folder: string) => {
    const tree = {
      work: path.join(folder, 'work'),
      repo: path.join(folder, 'repo'),
      writableRepo: path.join(folder, 'repo-w'),
    };
    writeTree(tree.work);
    makeRepository(tree.writableRepo);
    return { tree, head: makeRepository(tree.repo) };
  };
  mkdirSync(home, { recursive: true });
  const { tree: main, head } = makeTree(root);
  const { work, repo } = main;
  const trees = new Map<string, FuzzTree>();
  writeFileSync(sentinel, SENTINEL_TEXT);
  const sentinelStat = statSync(sentinel);
  const listing = () => readdirSync(outer).sort();
  const before = listing();
  return {
    root,
    ...main,
    tree(owner) {
      const made = trees.get(owner) ?? makeTree(path.join(root, owner)).tree;
      trees.set(owner, made);
      return made;
    },
    home,
    values: {
      paths: [
        ...Object.keys(FILES),
        'pixel.png',
        'src',
        'notes',
        '.',
        'new-file.txt',
        'src/new.ts',
        work,
        repo,
      ],
      refs: ['HEAD', 'HEAD~1', 'main', 'feature', 'v1', head, head.slice(0, 8), 'HEAD^'],
      fields: {
        workspace_id: ['default'],
        status: ['todo', 'in_progress', 'in-review', 'done', 'wip', 'closed'],
        priority: ['P0', 'P2', 'high', 'low'],
        relation: ['blocked_by', 'related_to', 'duplicate_of', 'parent_of'],
        email: ['fuzz@example.com'],
        as_of: ['2026-03-01', '2026-03-01T09:30:00Z'],
        valid_from: ['2026-03-01T09:30:00Z'],
        since: ['2026-01-01T00:00:00Z', '2026-03-01'],
        expectedSha256: [sha256(FILES['README.md'] as string)],
        symbol: ['Money.multiplyByRate', 'total', 'Money', 'main'],
        query: ['Money', 'fix the build', 'deploy'],
        domain: ['ops', 'deploy'],
        agent: ['alice', 'bob'],
        pr: ['PR_kwDOfuzz12', '#12'],
      },
      sentinel,
      trap: path.join(outer, 'pwned'),
      closedPort: await closedPort(),
    },
    dataDir: (server) => path.join(root, 'data', server),
    escapes() {
      const found: string[] = [];
      const after = listing();
      if (after.join('\n') !== before.join('\n'))
        found.push(`the root's parent ${outer} changed: [${before.join(', ')}] -> [${after.join(', ')}]`);
      const now = statSync(sentinel, { throwIfNoEntry: false });
      if (!now || readFileSync(sentinel, 'utf8') !== SENTINEL_TEXT || now.mtimeMs !== sentinelStat.mtimeMs)
        found.push(`the sentinel ${sentinel} beside the root was changed or removed`);
      const inHome = readdirSync(home);
      if (inHome.length > 0) found.push(`HOME ${home}, outside the root, got ${inHome.join(', ')}`);
      return found;
    },
    remove: () => rmSync(outer, { recursive: true, force: true }),
  };
}
