import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@toolmesh/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileFacts } from '../src/graph/file-facts.js';
import { languageOf } from '../src/graph/languages.js';
import { MIN_PARALLEL_FILES, ParsePool } from '../src/graph/parse-pool.js';
import { FIXTURES } from './fixture-graph.js';

// The worker runs the built entry (tests run from src/, where no worker is bundled beside the pool).
const BUILT_WORKER = fileURLToPath(new URL('../dist/graph/parse-worker.js', import.meta.url));

interface SourceFile {
  relative: string;
  source: string;
}

/** Every parsable file of the fixture repositories. */
function fixtureFiles(): SourceFile[] {
  return ['ts-shop', 'js-app', 'py-bank'].flatMap((fixture) =>
    readdirSync(path.join(FIXTURES, fixture), { recursive: true })
      .map(String)
      .filter((relative) => languageOf(relative))
      .map((relative) => ({
        relative: `${fixture}/${relative}`,
        source: readFileSync(path.join(FIXTURES, fixture, relative), 'utf8'),
      })),
  );
}

function parseAll(pool: ParsePool, files: SourceFile[]) {
  return Promise.all(
    files.map((file) => {
      const language = languageOf(file.relative);
      if (!language) throw new Error(`no language for ${file.relative}`);
      return pool.facts(language, file.relative, file.source);
    }),
  );
}

async function inThisThread(files: SourceFile[]) {
  const facts = [];
  for (const file of files) {
    const language = languageOf(file.relative);
    if (!language) throw new Error(`no language for ${file.relative}`);
    facts.push(await readFileFacts(language, file.relative, file.source));
  }
  return facts;
}

/** The command lines of this process's children (of any of its threads), from /proc. */
function childCommands(): string[] {
  return readdirSync(`/proc/${process.pid}/task`)
    .flatMap((task) => readFileSync(`/proc/${process.pid}/task/${task}/children`, 'utf8').split(' '))
    .filter((pid) => pid.trim())
    .map((pid) => readFileSync(`/proc/${pid.trim()}/cmdline`, 'utf8').split('\0').join(' '));
}

const parseWorkers = () => childCommands().filter((command) => command.includes(BUILT_WORKER));

let files: SourceFile[];
let scratch: string;
const logged: string[] = [];
const log = createLogger({ level: 'debug', sink: (line) => logged.push(line) });

beforeAll(() => {
  if (!existsSync(BUILT_WORKER))
    throw new Error(`${BUILT_WORKER} is missing: build the package first (pnpm build)`);
  files = fixtureFiles();
  scratch = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-parse-pool-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('ParsePool', () => {
  it('parses a large batch in worker processes, with the facts this thread reads', async () => {
    expect(files.length).toBeGreaterThanOrEqual(MIN_PARALLEL_FILES);
    const pool = new ParsePool({ log, workerFile: BUILT_WORKER, size: 2 });
    try {
      const parsing = parseAll(pool, files);
      await Promise.resolve();
      expect(pool.running).toBe(2);
      // Processes, whose memory all goes back when they end, unlike a thread's native memory.
      expect(parseWorkers()).toHaveLength(2);
      expect(await parsing).toEqual(await inThisThread(files));
    } finally {
      await pool.close();
    }
    expect(pool.running).toBe(0);
    expect(parseWorkers()).toHaveLength(0);
  });

  it('parses a few files in this thread, starting no worker', async () => {
    const few = files.slice(0, MIN_PARALLEL_FILES - 1);
    const pool = new ParsePool({ log, workerFile: BUILT_WORKER, size: 2 });
    try {
      const parsing = parseAll(pool, few);
      await Promise.resolve();
      expect(pool.running).toBe(0);
      expect(await parsing).toEqual(await inThisThread(few));
    } finally {
      await pool.close();
    }
  });

  it('parses the files of a worker that fails in this thread, says so, and uses no worker again', async () => {
    const broken = path.join(scratch, 'broken-worker.mjs');
    writeFileSync(broken, "throw new Error('this worker cannot start');\n");
    const pool = new ParsePool({ log, workerFile: broken, size: 2 });
    try {
      expect(await parseAll(pool, files)).toEqual(await inThisThread(files));
      expect(
        logged.some((line) => line.includes('a parse worker failed') && line.includes('cannot start')),
      ).toBe(true);
      const again = parseAll(pool, files);
      await Promise.resolve();
      expect(pool.running).toBe(0);
      await again;
    } finally {
      await pool.close();
    }
  });
});
