// `node test/bench/code-graph-correctness.mjs` (after building servers/code-graph): how right
// code_callers is, against each language's own checker as ground truth, on real code bases —
// zod's TypeScript sources against the TypeScript language service, node-gyp's gyp sources
// against pyright — for the tree-sitter mode and, when the build has it, the precise mode.
// Writes docs/code-graph-correctness.md; see that page for the method.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { copyGyp, copyZod } from './code-graph-corpus.mjs';
import { renderCorrectness } from './code-graph-correctness-report.mjs';
import { pythonTruth } from './code-graph-py-truth.mjs';
import { compareCallsites } from './code-graph-scoring.mjs';
import { hasPreciseMode, MODES, startCodeGraph } from './code-graph-server.mjs';
import { typescriptTruth } from './code-graph-ts-truth.mjs';
import { machineFacts } from './machine.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUTPUT = path.join(REPO, 'docs', 'code-graph-correctness.md');
/** How many symbols each study checks: the most-called ones, by the checker's own count. */
const SYMBOLS = 50;

const log = (line) => process.stderr.write(`${line}\n`);

/**
 * Asks the built server, over stdio, for the callers of each symbol the checker chose: the
 * symbol is named as a person would, by qualified name and file; one that code_symbol does not
 * find there, or that the name leaves ambiguous, is answered with no callsites and a note.
 */
async function askCodeGraph({ corpus, symbols, mode, dataDir }) {
  const db = path.join(dataDir, `${path.basename(corpus.root)}-${mode.id}.sqlite`);
  const started = performance.now();
  const server = await startCodeGraph({ root: corpus.root, db, mode });
  try {
    const status = (await server.ready()).roots[0];
    const readyMs = performance.now() - started;
    const answers = [];
    for (const symbol of symbols) {
      let callsites = [];
      let note;
      try {
        const named = await server.tool('code_symbol', {
          name: symbol.qualifiedName,
          file: symbol.file,
          maxTokens: 64000,
        });
        if (!named.matches.some((match) => match.line <= symbol.line && symbol.line <= match.endLine)) {
          note = `no indexed ${symbol.qualifiedName} spans line ${symbol.line}`;
        }
        const answer = await server.callers(symbol.qualifiedName, symbol.file);
        callsites = answer.callers.flatMap((group) => group.callsites);
      } catch (error) {
        note = (error.toolText ?? error.message).split('. ')[0];
      }
      answers.push({ symbol, note, comparison: compareCallsites(symbol.callsites, callsites) });
    }
    return {
      mode,
      readyMs,
      calls: status.calls,
      unresolvedCalls: status.unresolvedCalls,
      externalCalls: status.externalCalls,
      answers,
    };
  } finally {
    await server.close();
  }
}

async function study({ corpus, truth, modes, dataDir }) {
  const runs = [];
  for (const mode of modes) {
    log(`correctness: ${corpus.name}, ${mode.title} mode`);
    runs.push(await askCodeGraph({ corpus, symbols: truth.symbols, mode, dataDir }));
  }
  return { corpus: { ...corpus, files: corpus.files.length }, truth, runs };
}

async function main() {
  const began = performance.now();
  const base = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-correctness-'));
  try {
    const dataDir = path.join(base, 'data');
    mkdirSync(dataDir);
    const zod = copyZod(path.join(base, 'zod'));
    const gyp = copyGyp(path.join(base, 'gyp'));
    const precise = hasPreciseMode();
    const modes = [MODES.syntactic, ...(precise ? [MODES.precise] : [])];
    log(`correctness: precise mode ${precise ? 'present' : 'absent'} in the build`);
    log('correctness: TypeScript language service references over zod');
    const typescript = await study({
      corpus: zod,
      truth: typescriptTruth(zod, { count: SYMBOLS, log }),
      modes,
      dataDir,
    });
    log('correctness: pyright references over gyp');
    const python = await study({
      corpus: gyp,
      truth: await pythonTruth(gyp, { count: SYMBOLS, log }),
      modes,
      dataDir,
    });
    const page = renderCorrectness({
      facts: await machineFacts(),
      precise,
      typescript,
      python,
      totalMs: performance.now() - began,
    });
    writeFileSync(OUTPUT, page);
    log(
      `correctness: wrote ${path.relative(REPO, OUTPUT)} in ${Math.round((performance.now() - began) / 1000)} s`,
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exitCode = 1;
});
