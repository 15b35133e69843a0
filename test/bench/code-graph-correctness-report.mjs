// Renders the correctness study as docs/code-graph-correctness.md.
import { byKind, byResolution, totalOf } from './code-graph-scoring.mjs';
import { count, table } from './markdown.mjs';

/** What each kind of TypeScript call is, and what resolving it takes beyond the syntax of the calling file. */
const TYPESCRIPT_KINDS = {
  'namespace imported from the package itself':
    '`import * as z from "zod/v4"; z.string()`: the tests import the package by its own name, which its package.json exports map sends to `src/` under the `@zod/source` condition. The tree-sitter mode reads that map (any condition that reaches a file under the root, build output mapped back to the sources by tsconfig.json); what it still misses there are the calls on what those functions return.',
  'name imported from the package itself':
    '`import { compile } from "zod/v4/core"`: a named import through the package\'s own name, as above.',
  'local assigned a call (type inferred)':
    '`const schema = z.string(); schema.parse(x)`: the receiver holds what a call returned. The syntax gives its type only when the called function is found and declares its return type by name; otherwise only the checker knows it.',
  "a call's result f().method()":
    "`z.string().optional()`: a chain whose receiver is a call's result; same requirement as above, at every link.",
  'imported object or namespace':
    '`import { z } from "../index.js"; z.string()`: a named import that is a namespace. Found when the imported file declares it (`export namespace util`); missed when the file re-exports a namespace import under a name (`import * as z from …; export { z }`).',
  'namespace import ns.f()': '`import * as util from "./util.js"; util.f()`.',
  'callback parameter (type from context)':
    '`doc.indented((d) => d.write(…))`: an unannotated parameter whose type comes from the function it is passed to; only the checker knows it.',
  'property chain a.b.method()':
    '`ctx.common.issues.push(…)`, `union.options[0].parse(…)`: a member of a member; needs the type of each link.',
  'destructured local':
    '`const { status, ctx } = this._processInputParams(input); status.dirty()`: a binding out of an object pattern; needs the type of the destructured value.',
  'annotated parameter':
    '`function f(doc: Doc) { doc.write() }`: the annotation names the type. Missed when it names a type alias (`a: z.ZodTypeAny`) or a type imported from the package itself.',
  'annotated local': '`const c: z.ZodType<C> = …; c.parse()`: as for annotated parameters.',
  'local of inferred type':
    '`const z = { ...schemas }; z.string()`: a local whose type is inferred from something other than a call.',
  'other receiver expression': '`(schema as any).parse()`, element access and the like.',
  'local assigned new X()': '`const doc = new Doc(); doc.write()`: the syntax names the type.',
  'this.method()': '`this.write()` inside the class (or its subclasses).',
  'this.field.method()': '`this.doc.write()`: a field whose declared type names the class.',
  'super.method()': '`super.parse()`.',
  'same-file function': 'A function declared in the calling file, called by name.',
  'imported name': '`import { f } from "./util.js"; f()`.',
  'name imported through a re-export': '`import { f } from "./index.js"` where index.ts re-exports f.',
  'destructured name': '`const { f } = obj; f()`.',
  'function passed as a parameter': '`function g(f) { f() }`.',
  'local alias': '`const f = other; f()`.',
  'static call Class.method()': '`Money.parse()`.',
  'namespace member ns.f()': '`util.f()` on a `namespace util` in scope.',
};

/** The same for Python calls, as read by the syntactic scope walk of code-graph-py-truth.mjs. */
const PYTHON_KINDS = {
  'module attribute mod.f()':
    "`import gyp.common; gyp.common.RelativePath(…)`: a function reached through a module. gyp's packages live under `pylib/`, which gyp_main.py puts on `sys.path` (pyright: `extraPaths`); resolving them means knowing that source root — a module is otherwise looked for only from the root, `src/` and beside the importer.",
  'local assigned Class()':
    "`w = ninja_syntax.Writer(f); w.rule(…)`: the local's type is the class constructed; missed where the class itself is reached through an unresolved module (above).",
  'self.field.method()':
    '`self.ninja.build(…)` where `__init__` assigned `self.ninja = ninja_syntax.Writer(…)`: a field typed by an assignment, not an annotation.',
  'self.method()': '`self.WriteLn(…)` inside the class (or its subclasses).',
  'cls.method()': '`cls.create(…)` in a class method.',
  'super().method()': '`super().__init__(…)`.',
  'name imported with from … import': '`from gyp.common import GetEnvironFallback; GetEnvironFallback(…)`.',
  'unannotated parameter':
    '`def f(s): s.add(x)`: a parameter with no annotation; only inference from the callers knows it.',
  'attribute chain a.b.method()': '`a.b.f()` where `a` is no module: needs the type of each link.',
  'other bare name': 'A bare name bound some other way (a star import, a name imported inside a function…).',
  'same-file function': 'A function defined in the calling file, called by name.',
  'annotated parameter': '`def f(t: Tokenizer): t.check(…)`: the annotation names the class.',
  'local of inferred type': 'A local assigned something other than a call (a subscript, a conditional…).',
  'local assigned a call (type inferred)': '`p = f(); p.m()`: the local holds what a function returned.',
  "a call's result f().method()": '`f().m()`: the receiver is what a call returned.',
  'other receiver expression': '`d[k].m()`, `(a or b).m()` and the like.',
  'local alias': '`f = other; f()`.',
  'function passed as a parameter': '`def g(f): f()`.',
  'static call Class.method()': '`Writer.escape(…)`.',
  'annotated local': '`w: Writer = …; w.m()`.',
};

const ratio = (value) => (value === undefined ? '—' : value.toFixed(3));
const share = (part, whole) => (whole === 0 ? '—' : `${Math.round((part / whole) * 100)}%`);

function summaryRows(study, target) {
  return study.runs.map((run) => {
    const total = totalOf(run.answers.map((answer) => answer.comparison));
    return [
      `**${run.mode.title}**`,
      count(total.truth),
      count(total.found),
      count(total.truePositives),
      `**${ratio(total.precision)}**`,
      `**${ratio(total.recall)}**`,
      ratio(total.meanPrecision),
      ratio(total.meanRecall),
      target(run.mode, total),
    ];
  });
}

function kindRows(study) {
  const perRun = study.runs.map((run) => byKind(run.answers.flatMap((answer) => answer.comparison.marked)));
  return perRun[0].map((entry) => [
    entry.kind,
    count(entry.truth),
    ...perRun.flatMap((kinds) => {
      const found = kinds.find((kind) => kind.kind === entry.kind)?.found ?? 0;
      return [count(found), share(found, entry.truth)];
    }),
  ]);
}

/**
 * The kinds a run misses, most missed first, each explained with examples. Calls of a symbol
 * code-graph could not be asked about come first, apart: they say nothing of a kind.
 */
function missedKinds(run, kinds) {
  const unasked = run.answers.filter((answer) => answer.note && answer.comparison.found === 0);
  const marked = run.answers
    .filter((answer) => !unasked.includes(answer))
    .flatMap((answer) => answer.comparison.marked);
  const missedTotal = run.answers.reduce(
    (sum, answer) => sum + answer.comparison.truth - answer.comparison.truePositives,
    0,
  );
  const lines = unasked.map(
    (answer) =>
      `- **the symbol could not be named** — ${count(answer.comparison.truth)} callsites of \`${answer.symbol.qualifiedName}\` (${answer.symbol.file}:${answer.symbol.line}) missed (${share(answer.comparison.truth, missedTotal)} of all misses): ${answer.note}.`,
  );
  for (const entry of byKind(marked).filter((kind) => kind.found < kind.truth)) {
    const missed = marked.filter((call) => call.kind === entry.kind && !call.found);
    const examples = [...new Set(missed.map((call) => `${call.file}:${call.nameLine}`))].slice(0, 3);
    lines.push(
      `- **${entry.kind}** — ${count(missed.length)} missed (${share(missed.length, missedTotal)} of all misses; ${count(entry.found)} of ${count(entry.truth)} found). ${kinds[entry.kind] ?? ''} E.g. ${examples.map((example) => `\`${example}\``).join(', ')}.`,
    );
  }
  return lines.join('\n');
}

function resolutionRows(study) {
  return study.runs.flatMap((run) =>
    byResolution(run.answers.map((answer) => answer.comparison)).map((entry) => [
      run.mode.title,
      `\`${entry.resolution}\``,
      count(entry.answered),
      count(entry.correct),
      ratio(entry.correct / entry.answered),
    ]),
  );
}

function wrongExamples(run) {
  const extra = run.answers.flatMap((answer) =>
    answer.comparison.extra.map(
      (call) => `\`${call.file}:${call.line}\` → ${answer.symbol.qualifiedName} (\`${call.resolution}\`)`,
    ),
  );
  if (extra.length === 0)
    return `The ${run.mode.title} mode answered no callsite that the checker does not bind to the symbol.`;
  return `Callsites the ${run.mode.title} mode answered that the checker binds elsewhere, e.g.: ${extra.slice(0, 5).join('; ')}${extra.length > 5 ? '; …' : ''}.`;
}

/** The callsites a run found and the ones it answered wrongly, as a comparable key. */
function outcome(run) {
  return JSON.stringify(
    run.answers.map((answer) => [
      answer.comparison.marked.map((call) => call.found),
      answer.comparison.extra,
    ]),
  );
}

/** What each mode misses and answers wrongly; a mode with the same outcome as the one before says so. */
function missesSections(study, kinds) {
  return study.runs
    .map((run, index) => {
      const previous = study.runs[index - 1];
      const body =
        previous && outcome(previous) === outcome(run)
          ? `The same callsites as the ${previous.mode.title} mode, found and missed.`
          : `${missedKinds(run, kinds) || 'Nothing.'}\n\n${wrongExamples(run)}`;
      return `### What the ${run.mode.title} mode misses\n\n${body}\n`;
    })
    .join('\n');
}

function symbolRows(study) {
  return study.truth.symbols.map((symbol, index) => [
    String(index + 1),
    `\`${symbol.qualifiedName}\``,
    `${symbol.file}:${symbol.line}`,
    count(symbol.callsites.length),
    ...study.runs.map((run) => {
      const { comparison, note } = run.answers[index];
      const figures = `${count(comparison.found)} / ${count(comparison.truePositives)} / ${ratio(comparison.precision)} / ${ratio(comparison.recall)}`;
      return note ? `${figures} (${note.replace(/\|/g, '\\|')})` : figures;
    }),
  ]);
}

function indexRows(study) {
  return study.runs.map((run) => [
    run.mode.title,
    `${(run.readyMs / 1000).toFixed(1)} s`,
    count(run.calls),
    `${count(run.unresolvedCalls)} (${share(run.unresolvedCalls, run.calls)})`,
    count(run.externalCalls),
  ]);
}

function studySection({ title, study, groundTruth, target, kinds }) {
  const modes = study.runs.map((run) => run.mode.title);
  return `## ${title}

${groundTruth}

${study.truth.called.toLocaleString('en-US')} functions and methods have at least one call; the ${study.truth.symbols.length} most called are checked, with ${count(study.truth.symbols.reduce((sum, symbol) => sum + symbol.callsites.length, 0))} callsites between them.

### Precision and recall of callsites

${table(
  [
    'Mode',
    'True callsites',
    'Answered',
    'Correct',
    'Precision',
    'Recall',
    'Mean precision per symbol',
    'Mean recall per symbol',
    'Target (issue 6)',
  ],
  summaryRows(study, target),
)}

What each run indexed (index_status once ready; *ready* is from spawning the server to index_status reporting the index complete):

${table(['Mode', 'Ready', 'Calls', 'Unresolved', 'Into outside packages'], indexRows(study))}

### Recall by kind of call

Each true callsite is classified by the syntax of its callee and, for a member call, by how its receiver is bound (the checker's reading for TypeScript; a syntactic scope walk for Python). Sorted by callsites missed in the ${modes[0]} mode.

${table(
  ['Kind of call', 'True callsites', ...modes.flatMap((mode) => [`${mode}: found`, 'recall'])],
  kindRows(study),
)}

${missesSections(study, kinds)}
### How answered callsites were bound

Per resolution that code-graph reports with each callsite: how many it answered, and how many of those the checker agrees with.

${table(['Mode', 'Resolution', 'Answered', 'Correct', 'Precision'], resolutionRows(study))}

### Per symbol

Each mode's cell is *answered / correct / precision / recall*; a note says why code-graph gave no answer.

${table(['#', 'Symbol', 'Defined at', 'True callsites', ...modes], symbolRows(study))}
`;
}

function preciseTarget(mode, total) {
  if (mode.id !== 'precise') return 'measured and explained';
  const met = total.precision >= 0.95 && total.recall >= 0.95;
  return `precision and recall ≥ 0.95: **${met ? 'met' : 'not met'}**`;
}

export function renderCorrectness({ facts, precise, typescript, python, totalMs }) {
  const ts = typescript.corpus;
  const py = python.corpus;
  const preciseNote = precise
    ? 'Both modes are measured: the tree-sitter mode is the server started with `--no-precise`, the precise mode is its default, where the TypeScript checker upgrades the edges of TypeScript and JavaScript files after the syntactic index (the server is asked once index_status reports that upgrade done).'
    : "**The precise mode is not in this build** (the server's `--help` lists no `--no-precise`), so only the tree-sitter mode is measured; the harness runs the precise mode as soon as the build has it.";
  return `# code-graph correctness

How right \`code_callers\` is, measured against each language's own checker on real code bases. Written by
\`node test/bench/code-graph-correctness.mjs\` after \`pnpm --filter @toolmesh/server-code-graph build\` (about
${Math.ceil(totalMs / 1000)} s here, on ${facts.date}: Node ${facts.node}, ${facts.cpu}, ${facts.cores} cores). This page is generated: edit
test/bench/code-graph-*.mjs rather than this file.

## Method

- **Code bases.** zod ${ts.version}'s \`src/\` (${count(ts.files)} TypeScript files, ${count(ts.lines)} lines), copied with its package.json
  into a temporary folder, with a tsconfig.json like zod's own (strict, bundler resolution, the \`@zod/source\`
  export condition that sends \`zod/v4\` to \`src/v4/index.ts\`; vitest's and Node's types from the workspace).
  node-gyp ${py.version}'s \`gyp/\` (${count(py.files)} Python files, ${count(py.lines)} lines), copied with a pyrightconfig.json whose
  \`extraPaths: ["pylib"]\` does what gyp_main.py does with \`sys.path\`.
- **Ground truth.** TypeScript: the TypeScript language service's \`findReferences\` from every function and method
  declared at module, namespace or class level (function declarations with a body, \`const f = () => …\`, class
  methods with a body), kept to references that are the callee of a call or \`new\` expression (\`f()\`, \`x.f()\`,
  \`x?.f()\`) and that the checker binds to that very declaration, through imports and re-exports (find-references
  also lists calls of a base method that an override shadows; those belong to the base method). Python: pyright's
  \`textDocument/references\` (pyright-langserver over stdio) from every function and method in pyright's document
  symbols at module or class level, kept to references that are the function of a call in tree-sitter-python's tree.
- **Which symbols.** The ${typescript.truth.symbols.length} with the most such callsites, ties broken by qualified name, then file: fixed by the ground
  truth alone, before code-graph is asked anything.
- **A callsite** is \`file:line\`, the line where the call expression starts (what code-graph records: the call to \`min\`
  in \`z\\n  .string()\\n  .min(1)\` starts on the \`z\` line), counted as often as calls to the symbol start on that line.
- **code-graph's answer.** The built server, spawned over stdio with \`--watch off\` and driven by the real SDK
  client, asked as a person would: \`code_callers { symbol: <qualified name>, file: <file> }\`, every page followed.
  ${preciseNote}
- **Precision** is correct answered callsites over answered ones; **recall** is correct over true. The overall figures
  add callsites over all ${typescript.truth.symbols.length} symbols, so the most called weigh most; the per-symbol means weigh each symbol alike
  (a symbol with nothing answered has no precision and recall 0).

${studySection({
  title: `TypeScript: zod ${ts.version} against the TypeScript language service`,
  study: typescript,
  groundTruth: `Ground truth: ${typescript.truth.checker}; the program has ${count(typescript.truth.files)} files of zod and ${count(typescript.truth.errors)} type errors, in ${typescript.truth.errorFiles.map((entry) => `${entry.value} (${entry.times})`).join(', ') || 'no file'}.`,
  target: preciseTarget,
  kinds: TYPESCRIPT_KINDS,
})}
${studySection({
  title: `Python: node-gyp ${py.version} gyp against pyright`,
  study: python,
  groundTruth: `Ground truth: ${python.truth.checker}, over ${count(python.truth.files)} files; ${count(python.truth.candidates)} functions and methods looked up.`,
  target: (mode) =>
    mode.id === 'precise'
      ? 'the precise mode upgrades TypeScript and JavaScript only'
      : 'measured and explained',
  kinds: PYTHON_KINDS,
})}`;
}
