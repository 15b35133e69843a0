// Generates the benchmark data: a source-like tree with a known number of marker lines, and a
// large text file. Everything comes from a seeded generator, so every run builds the same bytes.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Mulberry32: a small, fast, seeded PRNG. */
function randomSource(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (list) => list[Math.floor(next() * list.length)],
  };
}

const WORDS = [
  'user',
  'order',
  'session',
  'cache',
  'index',
  'token',
  'queue',
  'event',
  'report',
  'config',
  'account',
  'invoice',
  'payment',
  'stream',
  'buffer',
  'record',
  'schema',
  'route',
  'view',
  'store',
];
const VERBS = [
  'get',
  'set',
  'load',
  'save',
  'parse',
  'render',
  'build',
  'check',
  'update',
  'create',
  'find',
  'merge',
];
const AREAS = ['api', 'auth', 'cli', 'config', 'core', 'db', 'jobs', 'net', 'ui', 'utils'];
const SUBS = ['handlers', 'models', 'services', 'tests'];
const EXTENSIONS = [
  ['ts', 0.55],
  ['js', 0.15],
  ['py', 0.12],
  ['md', 0.08],
  ['json', 0.05],
  ['txt', 0.05],
];

/**
 * Marker lines planted at random places. Nothing else the generator writes can match them: the
 * vocabulary has no "FIXME", "retry" or "legacyClient". Each `near` line is a miss on purpose.
 */
export const MARKERS = {
  literal: {
    pattern: 'FIXME(bench): flaky upstream',
    regex: false,
    lines: (r) => `${' '.repeat(r.int(0, 3) * 2)}// FIXME(bench): flaky upstream ${r.pick(WORDS)}`,
    near: (r) => `  // FIXME: flaky upstream ${r.pick(WORDS)}`,
  },
  regex: {
    pattern: 'retry[A-Z][a-z]+Timeout\\(',
    regex: true,
    lines: (r) => `  await retry${cap(r.pick(WORDS))}Timeout(${r.int(100, 9000)});`,
    near: (r) => `  await retry${r.pick(WORDS)}Timeout(${r.int(100, 9000)});`,
  },
  paged: {
    pattern: 'legacyClient.send(',
    regex: false,
    lines: (r) => `    legacyClient.send(${r.pick(WORDS)}Payload, { retries: ${r.int(1, 5)} });`,
    near: (r) => `    legacyClient.sendAll(${r.pick(WORDS)}Payload);`,
  },
};

function cap(word) {
  return word[0].toUpperCase() + word.slice(1);
}

function identifier(r) {
  return `${r.pick(VERBS)}${cap(r.pick(WORDS))}${r.next() < 0.3 ? cap(r.pick(WORDS)) : ''}`;
}

function codeLine(r, extension) {
  const a = r.pick(WORDS);
  const b = r.pick(WORDS);
  const indent = ' '.repeat(r.int(0, 3) * 2);
  if (extension === 'py') {
    return (
      indent +
      r.pick([
        `def ${a}_${b}(${a}, ${b}=None):`,
        `${a} = ${identifier(r).toLowerCase()}(${b})`,
        `if not ${a}:`,
        `return [item.${b} for item in ${a}s]`,
        `# ${a} ${b} handling for the ${r.pick(WORDS)} path`,
        `from .${a} import ${cap(b)}`,
      ])
    );
  }
  if (extension === 'md' || extension === 'txt') {
    return r.pick([
      `The ${a} ${b} is refreshed when the ${r.pick(WORDS)} changes.`,
      `## ${cap(a)} ${b}`,
      `- \`${identifier(r)}()\` returns the ${a} for a ${b}.`,
      '',
      `See ${a}/${b}.ts for the ${r.pick(WORDS)} rules.`,
    ]);
  }
  if (extension === 'json') {
    return `${indent}"${a}${cap(b)}": ${r.pick([`"${r.pick(WORDS)}"`, `${r.int(0, 999)}`, 'true', 'null'])},`;
  }
  return (
    indent +
    r.pick([
      `import { ${identifier(r)} } from './${a}/${b}.js';`,
      `export function ${identifier(r)}(${a}, ${b}) {`,
      `const ${a}${cap(b)} = await ${identifier(r)}(${a}, { ${b} });`,
      `if (!${a}) return ${r.pick(['null', 'undefined', '[]', 'false'])};`,
      `return ${a}.map((item) => item.${b});`,
      `// ${cap(a)} ${b}: keep in step with the ${r.pick(WORDS)} store.`,
      `throw new Error(\`${a} ${b} is missing: \${${a}.id}\`);`,
      '}',
      '',
      `${a}.${b} = ${r.int(0, 4096)};`,
    ])
  );
}

function pickExtension(r) {
  let roll = r.next();
  for (const [extension, share] of EXTENSIONS) {
    roll -= share;
    if (roll < 0) return extension;
  }
  return 'ts';
}

/** Picks `count` distinct integers in [0, total). */
function distinct(r, count, total, taken) {
  const chosen = new Set();
  while (chosen.size < count) {
    const value = Math.floor(r.next() * total);
    if (!taken.has(value)) {
      chosen.add(value);
      taken.add(value);
    }
  }
  return chosen;
}

/**
 * Writes `packages` top-level folders of `filesPerPackage` files each under `root`:
 * pkgNN/{README.md,package.json} and pkgNN/src/<area>[/<sub>]/<name>.<ext>.
 * Returns the counts, including how many lines each marker was planted on.
 */
export function generateTree(root, { packages = 20, filesPerPackage = 1000, markerCounts, seed = 20240601 }) {
  const r = randomSource(seed);
  const plan = [];
  const directories = new Set();
  for (let p = 0; p < packages; p++) {
    const pkg = `pkg${String(p).padStart(2, '0')}`;
    directories.add(pkg);
    directories.add(`${pkg}/src`);
    plan.push(
      { file: `${pkg}/README.md`, extension: 'md' },
      { file: `${pkg}/package.json`, extension: 'json' },
    );
    const folders = [];
    for (const area of AREAS) {
      folders.push(`${pkg}/src/${area}`);
      for (const sub of SUBS) folders.push(`${pkg}/src/${area}/${sub}`);
    }
    for (const folder of folders) directories.add(folder);
    for (let i = 0; i < filesPerPackage - 2; i++) {
      const extension = pickExtension(r);
      plan.push({ file: `${folders[i % folders.length]}/${identifier(r)}${i}.${extension}`, extension });
    }
  }
  for (const item of plan) item.lines = item.extension === 'json' ? r.int(5, 40) : r.int(10, 160);

  // Plant markers (and their near misses) on distinct global line numbers.
  const totalLines = plan.reduce((sum, item) => sum + item.lines, 0);
  const taken = new Set();
  const planted = new Map();
  const counts = {};
  for (const [name, count] of Object.entries(markerCounts)) {
    const marker = MARKERS[name];
    for (const at of distinct(r, count, totalLines, taken)) planted.set(at, marker.lines);
    for (const at of distinct(r, Math.ceil(count / 2), totalLines, taken)) planted.set(at, marker.near);
    counts[name] = { pattern: marker.pattern, regex: marker.regex, lines: 0, files: new Set() };
  }
  const tests = Object.entries(counts).map(([name, info]) => ({
    info,
    test: info.regex ? (line) => new RegExp(info.pattern).test(line) : (line) => line.includes(info.pattern),
    name,
  }));

  for (const folder of [...directories].sort()) mkdirSync(path.join(root, folder), { recursive: true });
  let globalLine = 0;
  let bytes = 0;
  for (const item of plan) {
    const lines = [];
    for (let i = 0; i < item.lines; i++, globalLine++) {
      const make = planted.get(globalLine);
      const line = make ? make(r) : codeLine(r, item.extension);
      // Ground truth, counted the way both tools count: one per matching line.
      for (const { info, test } of tests) {
        if (test(line)) {
          info.lines++;
          info.files.add(item.file);
        }
      }
      lines.push(line);
    }
    const text = `${lines.join('\n')}\n`;
    bytes += Buffer.byteLength(text);
    writeFileSync(path.join(root, item.file), text);
  }
  for (const info of Object.values(counts)) info.files = info.files.size;
  return {
    files: plan.length,
    directories: directories.size,
    entries: plan.length + directories.size,
    lines: totalLines,
    bytes,
    maxDepth: 4,
    markers: counts,
  };
}

/** Writes a log-like UTF-8 text file of exactly `size` bytes; returns its line count. */
export function generateLargeFile(file, size, seed = 7) {
  const r = randomSource(seed);
  const lines = [];
  let used = 0;
  let n = 0;
  while (true) {
    const line = `2024-06-01T12:${String(n % 60).padStart(2, '0')}:${String((n * 7) % 60).padStart(2, '0')}Z ${r.pick(['INFO', 'WARN', 'DEBUG', 'ERROR'])} ${identifier(r)} ${r.pick(WORDS)}=${r.int(0, 99999)} ${codeLine(r, 'md')}`;
    if (used + line.length + 1 > size) break;
    lines.push(line);
    used += line.length + 1;
    n++;
  }
  // Pad the last line so that the file is exactly `size` bytes.
  const rest = size - used;
  if (rest > 0) lines.push('#'.repeat(rest - 1));
  writeFileSync(file, `${lines.join('\n')}\n`);
  return lines.length;
}
