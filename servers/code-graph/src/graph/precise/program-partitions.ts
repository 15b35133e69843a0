import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { findProjectMarkers } from './project-markers.js';

/** One program: a tsconfig project, or an inferred program over the files no tsconfig takes. */
export interface Partition {
  /** The config file, or the package folder of an inferred program. */
  id: string;
  /** Shown in progress: `packages/api/tsconfig.json`, `inferred (.)`. */
  label: string;
  options: ts.CompilerOptions;
  rootNames: string[];
  projectReferences?: readonly ts.ProjectReference[];
  /** The root-relative files this program checks; each file belongs to one partition. */
  owned: string[];
}

/** Export conditions every resolver knows; a custom one pointing at .ts sources is worth adding. */
const STANDARD_CONDITIONS = new Set(['types', 'import', 'require', 'default', 'node', 'browser', 'module']);

/**
 * Splits a root's TypeScript and JavaScript files into programs: each file goes to the nearest
 * tsconfig.json or jsconfig.json whose files include it, and the rest to one inferred program
 * per package (nearest package.json), so a large repository is checked one project at a time.
 */
export function planPartitions(root: string, files: readonly string[]): Partition[] {
  const markers = findProjectMarkers(root, files);
  const unowned = new Set(files);
  const partitions: Partition[] = [];
  for (const configFile of markers.configs) {
    const parsed = readConfig(configFile);
    if (!parsed) continue;
    const included = new Set(parsed.fileNames.map((file) => path.resolve(file)));
    const owned = [...unowned].filter((file) => included.has(path.join(root, file)));
    if (owned.length === 0) continue;
    for (const file of owned) unowned.delete(file);
    const declarations = parsed.fileNames.filter((file) => /\.d\.[cm]?ts$/.test(file));
    partitions.push({
      id: configFile,
      label: path.relative(root, configFile) || path.basename(configFile),
      options: { ...parsed.options, noEmit: true },
      rootNames: [...new Set([...declarations, ...owned.map((file) => path.join(root, file))])],
      ...(parsed.projectReferences && { projectReferences: parsed.projectReferences }),
      owned,
    });
  }
  const byPackage = new Map<string, string[]>();
  for (const file of unowned) {
    const absolute = path.join(root, file);
    const folder =
      markers.packages.find((candidate) => absolute.startsWith(`${candidate}${path.sep}`)) ?? root;
    byPackage.set(folder, [...(byPackage.get(folder) ?? []), file]);
  }
  const options = inferredOptions(markers.packages);
  for (const [folder, owned] of byPackage) {
    partitions.push({
      id: folder,
      label: `inferred (${path.relative(root, folder) || '.'})`,
      options,
      rootNames: owned.map((file) => path.join(root, file)),
      owned,
    });
  }
  return partitions;
}

function readConfig(configFile: string): ts.ParsedCommandLine | undefined {
  return ts.getParsedCommandLineOfConfigFile(
    configFile,
    { noEmit: true },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
}

/** What a project without a tsconfig.json is checked with: modern defaults, JavaScript included. */
function inferredOptions(packageFolders: readonly string[]): ts.CompilerOptions {
  const conditions = sourceConditions(packageFolders);
  return {
    allowJs: true,
    checkJs: false,
    noEmit: true,
    skipLibCheck: true,
    strict: true,
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    jsx: ts.JsxEmit.Preserve,
    resolveJsonModule: true,
    allowImportingTsExtensions: true,
    esModuleInterop: true,
    maxNodeModuleJsDepth: 0,
    ...(conditions.length > 0 && { customConditions: conditions }),
  };
}

/**
 * Custom export conditions of the packages that map to TypeScript sources (zod's
 * `"@zod/source": "./src/index.ts"`): with them, a package importing itself by name reaches its
 * own sources under the root instead of its built declarations.
 */
function sourceConditions(packageFolders: readonly string[]): string[] {
  const found = new Set<string>();
  const walk = (value: unknown, condition?: string): void => {
    if (typeof value === 'string') {
      if (condition && /\.[cm]?tsx?$/.test(value) && !/\.d\.[cm]?ts$/.test(value)) found.add(condition);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      const isCondition = !key.startsWith('.') && !key.startsWith('#') && !STANDARD_CONDITIONS.has(key);
      walk(inner, isCondition ? key : condition);
    }
  };
  for (const folder of packageFolders) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as {
        exports?: unknown;
        imports?: unknown;
      };
      walk(manifest.exports);
      walk(manifest.imports);
    } catch {
      // An unreadable package.json adds no conditions.
    }
  }
  return [...found];
}
