import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '@toolmesh/core';
import { type ConnectedClient, connectInMemory, resultText } from '@toolmesh/core/testing';
import { createGitServer } from '../src/server.js';

/** Plain git, as a person would run it, for setting repositories up and checking what tools did. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Test Author',
      GIT_AUTHOR_EMAIL: 'author@example.com',
      GIT_COMMITTER_NAME: 'Test Author',
      GIT_COMMITTER_EMAIL: 'author@example.com',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function writeFile(file: string, content: string | Buffer): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

/** A repository with an identity of its own and, when `files` are given, a first commit of them. */
export function makeRepository(folder: string, files: Record<string, string> = {}): string {
  mkdirSync(folder, { recursive: true });
  git(folder, 'init', '--quiet', '--initial-branch=main');
  git(folder, 'config', 'user.name', 'Test Author');
  git(folder, 'config', 'user.email', 'author@example.com');
  if (Object.keys(files).length > 0) commitFiles(folder, files, 'first commit');
  return folder;
}

export function commitFiles(folder: string, files: Record<string, string>, message: string): string {
  for (const [name, content] of Object.entries(files)) writeFile(path.join(folder, name), content);
  git(folder, 'add', '--all');
  git(folder, 'commit', '--quiet', '-m', message);
  return git(folder, 'rev-parse', 'HEAD').trim();
}

export interface GitFixture extends ConnectedClient {
  base: string;
  /** The first root: a plain folder that the test fills with repositories. */
  root: string;
  /** A folder beside the root, outside it. */
  outside: string;
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  fails(name: string, args?: Record<string, unknown>): Promise<string>;
}

export async function gitFixture(options: { allowWrite?: boolean } = {}): Promise<GitFixture> {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-git-test-')));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  const server = createGitServer({
    roots: [root],
    allowWrite: options.allowWrite ?? true,
    log: createLogger({ level: 'error', sink: () => undefined }),
  });
  const connected = await connectInMemory(server);
  const describe = (name: string, result: CallToolResult) => `${name}: ${resultText(result)}`;
  return {
    ...connected,
    base,
    root,
    outside,
    async ok(name, args = {}) {
      const result = await connected.call(name, args);
      if (result.isError) throw new Error(`expected success, got ${describe(name, result)}`);
      return result.structuredContent as never;
    },
    async fails(name, args = {}) {
      const result = await connected.call(name, args);
      if (!result.isError)
        throw new Error(`expected an error, got ${JSON.stringify(result.structuredContent)}`);
      return resultText(result);
    },
    async close() {
      await connected.close();
      rmSync(base, { recursive: true, force: true });
    },
  };
}
