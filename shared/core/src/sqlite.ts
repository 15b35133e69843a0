import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { requireOptionalPeers } from './optional-peers.js';

export type SqliteDatabase = Database.Database;

let driver: { Database: typeof Database; options: Database.Options } | undefined;

/**
 * better-sqlite3, required on first use rather than imported: it is an optional peer of core, so a
 * server that keeps nothing in SQLite (git) installs without its 28 MB native build, and only the
 * servers that do (they depend on it themselves) pay for it.
 */
function sqliteDriver(): NonNullable<typeof driver> {
  if (!driver) {
    requireOptionalPeers(import.meta.url, ['better-sqlite3'], 'this server keeps its data in SQLite');
    const require = createRequire(import.meta.url);
    const addon = builtAddon(require);
    driver = {
      Database: require('better-sqlite3') as typeof Database,
      options: addon ? { nativeBinding: addon } : {},
    };
  }
  return driver;
}

/**
 * better-sqlite3's native addon where its install builds it. Given its path, better-sqlite3
 * loads it directly, instead of through `bindings`, which tries a dozen places with a stat and a
 * thrown error each: about 3 ms of CPU off every process that opens SQLite. Elsewhere (another
 * build layout, a package that hides its package.json), undefined: better-sqlite3 finds it
 * through `bindings` as before.
 */
function builtAddon(require: NodeRequire): string | undefined {
  let folder: string;
  try {
    folder = path.dirname(require.resolve('better-sqlite3/package.json'));
  } catch {
    return undefined;
  }
  const addon = path.join(folder, 'build', 'Release', 'better_sqlite3.node');
  return existsSync(addon) ? addon : undefined;
}

/**
 * One schema step: SQL, or a function for a step whose statements depend on the data (say, a
 * table per workspace found in the file). Either runs inside the step's transaction.
 */
export type Migration = string | ((db: SqliteDatabase) => void);

/**
 * Opens (creating if needed) a SQLite file ready for concurrent use: WAL, a busy timeout,
 * foreign keys, and the numbered `migrations` applied in order. `migrations[i]` is version i+1;
 * the version lives in `PRAGMA user_version`, so a migration runs exactly once per file.
 */
export function openDatabase(file: string, migrations: readonly Migration[]): SqliteDatabase {
  const { Database: Driver, options } = sqliteDriver();
  if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
  const db = new Driver(file, options);
  try {
    // The timeout first, so that switching to WAL also waits out another process opening the file.
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    migrate(db, migrations, file);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

function migrate(db: SqliteDatabase, migrations: readonly Migration[], file: string): void {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  const current = version();
  if (current > migrations.length) {
    throw new Error(
      `${file} is at schema version ${current}, newer than this toolmesh knows (${migrations.length}): upgrade toolmesh or point --db at another file`,
    );
  }
  for (let next = current + 1; next <= migrations.length; next++) {
    const step = migrations[next - 1] as Migration;
    db.transaction(() => {
      // Read again under the write lock: another process opening the same file may have applied it.
      if (version() >= next) return;
      if (typeof step === 'string') db.exec(step);
      else step(db);
      db.pragma(`user_version = ${next}`);
    }).immediate();
  }
}
