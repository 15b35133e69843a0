// The real code bases the code-graph studies run on, copied from test/node_modules into a temporary
// folder so that no tool writes next to the installed packages: zod's TypeScript sources and
// node-gyp's gyp Python sources, each with the project file its own checker needs.
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TEST_PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPO = path.dirname(TEST_PACKAGE);
const inTest = createRequire(path.join(TEST_PACKAGE, 'package.json'));
const inRepo = createRequire(path.join(REPO, 'package.json'));

const packageFolder = (name) => path.dirname(inTest.resolve(`${name}/package.json`));

/** Every file under `folder` whose name ends with `extension`, absolute, sorted. */
export function filesUnder(folder, extension) {
  const found = [];
  const walk = (current) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith(extension)) found.push(full);
    }
  };
  walk(folder);
  return found.sort();
}

function lineCount(files) {
  return files.reduce((sum, file) => sum + readFileSync(file, 'utf8').split('\n').length, 0);
}

/**
 * zod's `src/` as `<folder>/src` beside zod's package.json, with a tsconfig.json like the one in
 * zod's repository: strict, bundler resolution and the `@zod/source` export condition, so that
 * the tests' imports of `zod`, `zod/v4`… resolve to the copied sources through the package's own
 * exports map, as in zod's repository. vitest and @types/node come from the workspace.
 */
export function copyZod(folder) {
  const source = path.join(packageFolder('zod'), 'src');
  mkdirSync(folder, { recursive: true });
  cpSync(source, path.join(folder, 'src'), { recursive: true });
  cpSync(path.join(packageFolder('zod'), 'package.json'), path.join(folder, 'package.json'));
  const vitest = path.dirname(inRepo.resolve('vitest/package.json'));
  const nodeTypes = path.dirname(inRepo.resolve('@types/node/package.json'));
  const tsconfig = {
    compilerOptions: {
      target: 'es2022',
      module: 'esnext',
      moduleResolution: 'bundler',
      lib: ['es2022', 'dom'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      customConditions: ['@zod/source'],
      paths: { vitest: [path.join(vitest, 'dist/index.d.ts')] },
      typeRoots: [path.dirname(nodeTypes)],
      types: ['node'],
    },
    include: ['src/**/*.ts'],
  };
  writeFileSync(path.join(folder, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  const files = filesUnder(path.join(folder, 'src'), '.ts');
  return {
    name: 'zod',
    version: JSON.parse(readFileSync(path.join(packageFolder('zod'), 'package.json'), 'utf8')).version,
    root: folder,
    files,
    lines: lineCount(files),
  };
}

/**
 * node-gyp's `gyp/` folder as `<folder>`, with a pyrightconfig.json that puts `pylib` on the
 * import path, as gyp's own launcher (gyp_main.py) does, so `import gyp.common` resolves.
 */
export function copyGyp(folder) {
  const nodeGyp = packageFolder('node-gyp');
  mkdirSync(folder, { recursive: true });
  cpSync(path.join(nodeGyp, 'gyp'), folder, { recursive: true });
  writeFileSync(
    path.join(folder, 'pyrightconfig.json'),
    `${JSON.stringify({ extraPaths: ['pylib'], pythonVersion: '3.12' }, null, 2)}\n`,
  );
  const files = filesUnder(folder, '.py');
  return {
    name: 'node-gyp gyp',
    version: JSON.parse(readFileSync(path.join(nodeGyp, 'package.json'), 'utf8')).version,
    root: folder,
    files,
    lines: lineCount(files),
  };
}
