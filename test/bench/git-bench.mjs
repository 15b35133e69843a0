// The git server's benchmarks: the built toolmesh-git spawned over real stdio and driven by the
// real MCP SDK client, on a generated repository of 20,000 commits and 10,000 files, each tool
// call against the plain git command that answers the same question, in the same run.
// `node test/bench/git-bench.mjs` runs it alone and prints its section.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnStdioClient } from '@toolmesh/core/testing';
import { check } from './check.mjs';
import { startFacts } from './machine.mjs';
import { count, table } from './markdown.mjs';
import { runAloneWhenMain } from './run-alone.mjs';
import { interleaved, ms } from './stats.mjs';

const GIT_BIN = fileURLToPath(new URL('../../servers/git/dist/index.js', import.meta.url));
const COMMITS = 20_000;
const FILES = 10_000;
const FOLDERS = 100;
const LINES_PER_FILE = 12;
const RUNS = 15;
const LOG_LIMIT = 50;
/** The older side of the distant diff: this many commits after the first. */
const DISTANT_FROM = 100;
const DIRTY = { modified: 25, untracked: 10 };

const run = promisify(execFile);
/** Plain git as a person runs it; no config of the machine's user gets in. */
const gitEnvironment = (home) => ({
  PATH: process.env.PATH,
  HOME: home,
  GIT_CONFIG_NOSYSTEM: '1',
  LC_ALL: 'C',
});

function fileName(index) {
  return `src/dir${String(index % FOLDERS).padStart(3, '0')}/file${String(index).padStart(5, '0')}.txt`;
}

function fileText(index, revision) {
  const lines = [];
  for (let line = 0; line < LINES_PER_FILE; line++)
    lines.push(`file ${index} line ${line} revision ${line === 3 ? revision : 0}`);
  return `${lines.join('\n')}\n`;
}

function blob(text) {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

/**
 * The fast-import stream: a first commit of every file, then commits that each change one line
 * of one file, going round the files, so that distant commits differ in every file.
 */
function* importStream() {
  const author = 'Bench Author <bench@example.com>';
  const start = 1_700_000_000;
  let first = `commit refs/heads/main\nmark :1\ncommitter ${author} ${start} +0000\n${blob('first commit')}`;
  for (let index = 0; index < FILES; index++)
    first += `M 100644 inline ${fileName(index)}\n${blob(fileText(index, 0))}`;
  yield first;
  for (let number = 2; number <= COMMITS; number++) {
    const index = (number * 7919) % FILES;
    yield `commit refs/heads/main\nmark :${number}\ncommitter ${author} ${start + number * 60} +0000\n${blob(`change ${number}: file ${index}`)}from :${number - 1}\nM 100644 inline ${fileName(index)}\n${blob(fileText(index, number))}`;
  }
}

async function generateRepository(folder) {
  mkdirSync(folder, { recursive: true });
  const env = gitEnvironment(folder);
  await run('git', ['init', '--quiet', '--initial-branch=main'], { cwd: folder, env });
  await new Promise((resolve, reject) => {
    const importer = spawn('git', ['fast-import', '--quiet', '--done'], {
      cwd: folder,
      env,
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    importer.once('error', reject);
    importer.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`)),
    );
    (async () => {
      for (const chunk of importStream()) {
        if (!importer.stdin.write(chunk))
          await new Promise((drained) => importer.stdin.once('drain', drained));
      }
      importer.stdin.end('done\n');
    })().catch(reject);
  });
  await run('git', ['reset', '--hard', '--quiet'], { cwd: folder, env, maxBuffer: 64 * 1024 * 1024 });
  for (let index = 0; index < DIRTY.modified; index++) {
    writeFileSync(path.join(folder, fileName(index * 397)), `${fileText(index * 397, 0)}dirty\n`);
  }
  for (let index = 0; index < DIRTY.untracked; index++)
    writeFileSync(path.join(folder, `untracked-${index}.txt`), 'new\n');
  const from = (
    await run('git', ['rev-list', '--reverse', 'HEAD'], { cwd: folder, env, maxBuffer: 64 * 1024 * 1024 })
  ).stdout
    .split('\n')
    .at(DISTANT_FROM);
  return { from, env };
}

async function plainGit(folder, env, args) {
  return (await run('git', args, { cwd: folder, env, maxBuffer: 256 * 1024 * 1024 })).stdout;
}

/** Runs the git benchmarks in `base`; returns the figures for renderGitSection. */
export async function benchmarkGit({ base, log }) {
  const root = path.join(base, 'root');
  const repository = path.join(root, 'big');
  const startedAt = startFacts();
  log(`bench git: generating ${count(COMMITS)} commits of ${count(FILES)} files with git fast-import`);
  const began = performance.now();
  const { from, env } = await generateRepository(repository);
  const generateMs = performance.now() - began;
  log(`bench git: generated in ${ms(generateMs)}`);

  const server = await spawnStdioClient(
    process.execPath,
    [GIT_BIN, '--root', root, '--log-level', 'warning'],
    {
      env: { HOME: repository },
    },
  );
  const tool = async (name, args) => {
    const result = await server.call(name, args);
    if (result.isError)
      throw new Error(`${name} failed: ${result.content.map((block) => block.text).join('\n')}`);
    return result.structuredContent;
  };
  try {
    const cases = [
      {
        name: 'git_status',
        tool: 'git_status',
        args: { repo: 'big' },
        plain: ['status', '--porcelain=v2', '--branch'],
        verify: (out, text) => {
          const lines = text.split('\n').filter((line) => line && !line.startsWith('#'));
          check(
            out.counts.unstaged === DIRTY.modified,
            `git_status saw ${out.counts.unstaged} modified files`,
          );
          check(
            out.counts.untracked + out.counts.unstaged === lines.length,
            'git_status and git status list the same files',
          );
        },
      },
      {
        name: `git_history log (limit ${LOG_LIMIT})`,
        tool: 'git_history',
        args: { repo: 'big', action: 'log', limit: LOG_LIMIT, maxTokens: 64000 },
        plain: ['log', `--max-count=${LOG_LIMIT}`, '--numstat', '--format=%H %an %aI %s'],
        verify: (out, text) => {
          check(
            out.commits.length === LOG_LIMIT && !out.truncated,
            `git_history returned ${out.commits.length} commits`,
          );
          check(
            text.includes(out.commits[LOG_LIMIT - 1].hash),
            'git_history and git log end at the same commit',
          );
        },
      },
      {
        name: 'git_diff summary (distant commits)',
        tool: 'git_diff',
        args: { repo: 'big', from, to: 'HEAD' },
        plain: ['diff', '--numstat', from, 'HEAD'],
        verify: (out, text) => {
          const files = text.split('\n').filter(Boolean).length;
          check(out.totals.files === files, `git_diff counted ${out.totals.files} files, git diff ${files}`);
          check(files > FILES * 0.9, `the distant commits differ in ${files} files`);
        },
      },
    ];
    const results = [];
    for (const bench of cases) {
      log(`bench git: ${bench.name}`);
      const measured = await interleaved(
        { toolmesh: () => tool(bench.tool, bench.args), git: () => plainGit(repository, env, bench.plain) },
        { runs: RUNS, warmup: 2 },
      );
      bench.verify(measured.toolmesh.result, measured.git.result);
      results.push({
        name: bench.name,
        plain: `git ${bench.plain.map((arg) => (arg === from ? '<from>' : arg)).join(' ')}`,
        toolmesh: measured.toolmesh.stats,
        git: measured.git.stats,
        ratio: measured.toolmesh.stats.median / measured.git.stats.median,
      });
    }
    return { startedAt, generateMs, runs: RUNS, results };
  } finally {
    await server.close();
  }
}

export function renderGitSection(run) {
  const range = (s) => `${ms(s.min)} – ${ms(s.max)}`;
  return `## git server

The built \`servers/git/dist/index.js\` is spawned over real stdio and driven by the real MCP SDK client; each
call is timed against the plain git command answering the same question, run from the bench process through
\`execFile\`, interleaved run by run (${run.runs} runs each after two warm-ups; median, fastest – slowest), in one
run started ${run.startedAt.date} with a 1-minute load average of ${run.startedAt.load}. The machine's two cores are
shared and busy, so medians move from run to run (by half or more under load); the ratio is the figure to read,
as both sides of it share the run's load, and it too moves by a few tenths between runs. Every git command the
server runs goes through simple-git (servers/git/README.md says how). The
repository is generated with \`git fast-import\` in a temporary folder: ${count(COMMITS)} commits on one branch,
${count(FILES)} files in ${FOLDERS} folders, the first commit adding every file and each later one changing one
line of one file, going round the files; ${DIRTY.modified} files are then modified in the work tree and
${DIRTY.untracked} untracked ones added. Generating it took ${ms(run.generateMs)}. The distant diff compares
commit ${DISTANT_FROM + 1} with HEAD, which differ in every file. A toolmesh call runs more than one git
command: it lists the repository's config first (to neutralise the drivers it names), verifies revisions, and
\`git_diff\` reads raw records and line counts in one pass; figures are checked against plain git or the bench fails.

Reproduce this section alone, after \`pnpm build\`: \`node test/bench/run.mjs --only git\` (it rewrites only this section).

${table(
  ['Call', 'toolmesh', 'Plain git', 'git', 'toolmesh / git'],
  run.results.map((result) => [
    result.name,
    `**${ms(result.toolmesh.median)}** (${range(result.toolmesh)})`,
    `\`${result.plain}\``,
    `**${ms(result.git.median)}** (${range(result.git)})`,
    `**${result.ratio.toFixed(2)}×**`,
  ]),
)}
`;
}

runAloneWhenMain(import.meta.url, 'git', benchmarkGit, renderGitSection);
