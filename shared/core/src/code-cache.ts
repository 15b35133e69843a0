import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { debuglog } from 'node:util';
import vm from 'node:vm';
import { cacheDirectory } from './data-dir.js';

/**
 * When a run that found no usable cache writes one: late enough that start-up (and the first
 * answers) ran and were compiled, early enough that V8 has not yet dropped that start-up code's
 * bytecode as unused. A run that ends sooner writes it as it exits.
 */
const WRITE_AFTER_MS = 3_000;

/** `NODE_DEBUG=toolmesh-code-cache` says on stderr what became of the cache. */
const debug = debuglog('toolmesh-code-cache');

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The last line of a stamped bundle, before its SHA-256 (64 hex digits) and a newline. */
const STAMP = '\n//# toolmesh-bundle-sha256=';
const STAMP_LENGTH = STAMP.length + 64 + 1;

/**
 * At build time: ends the bundle with its own SHA-256, so a run knows which build it holds
 * without hashing megabytes at every start.
 */
export function stampBundle(bundle: string): void {
  appendFileSync(bundle, `${STAMP}${sha256(readFileSync(bundle))}\n`);
}

/** The SHA-256 a stamped bundle ends with, or undefined (unstamped: run without a cache). */
function stampOf(bytes: Buffer): string | undefined {
  const stamp = bytes.subarray(bytes.length - STAMP_LENGTH).toString('latin1');
  return stamp.startsWith(STAMP) ? stamp.slice(STAMP.length, -1) : undefined;
}

/**
 * Runs a bin's CommonJS bundle the way Node runs a CommonJS file, but compiled with V8's code
 * cache: Node 20 caches no module code between runs (its compile cache is 22.1+), so each start
 * parsed and compiled the bin's megabytes again. The cache is `<cache dir>/code/<name>.v8cache`,
 * written once by a run that found none usable (temporary file, then rename: a concurrent
 * writer never leaves half a file). Its first line names the Node version, the bundle's stamp
 * (`stampBundle`) and the cached bytes' SHA-256: a cache from another build, another Node or a
 * damaged file is ignored (V8 checks only the source's length, and runs damaged bytes it is
 * given), and one V8 rejects is rewritten.
 * Nothing about the cache is ever an error: without a writable cache directory the bin runs
 * uncached. `name` keeps the caches of commands that load different code apart.
 */
export function runBundleWithCodeCache(bundle: string, name: string): void {
  const bytes = readFileSync(bundle);
  const stamp = stampOf(bytes);
  const key = `toolmesh-code-cache 1 ${process.version} ${process.arch} ${stamp}`;
  const file = path.join(cacheDirectory(), 'code', `${name}.v8cache`);
  const cachedData = stamp === undefined ? undefined : readCache(file, key);
  // The build makes the bundle ASCII: decoded as Latin-1 it is V8's one-byte string as read,
  // with no UTF-8 decoding of megabytes.
  const source = `(function (exports, require, module, __filename, __dirname) {${bytes.toString('latin1')}\n})`;
  const script = new vm.Script(source, { filename: bundle, cachedData });
  if (stamp === undefined) debug('%s has no stamp: runs without a cache', bundle);
  else if (cachedData !== undefined && script.cachedDataRejected !== true) debug('used %s', file);
  else {
    debug('%s %s', cachedData === undefined ? 'no usable cache at' : 'V8 rejected', file);
    writeLater(script, file, key);
  }
  const module = { exports: {} };
  const body = script.runInThisContext() as (...args: unknown[]) => void;
  body.call(module.exports, module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
}

/** The cached bytes in `file` when its first line is `key` and they are intact, else undefined. */
function readCache(file: string, key: string): Buffer | undefined {
  let content: Buffer;
  try {
    content = readFileSync(file);
  } catch {
    return undefined;
  }
  const end = content.indexOf(10);
  if (end < 0) return undefined;
  const [written, dataHash] = splitLast(content.subarray(0, end).toString('latin1'));
  const data = content.subarray(end + 1);
  return written === key && dataHash === sha256(data) ? data : undefined;
}

const splitLast = (line: string): [string, string] => {
  const space = line.lastIndexOf(' ');
  return [line.slice(0, space), line.slice(space + 1)];
};

function writeLater(script: vm.Script, file: string, key: string): void {
  let written = false;
  const write = (code?: number) => {
    if (written || (code !== undefined && code !== 0)) return;
    written = true;
    writeCache(file, key, script.createCachedData());
  };
  setTimeout(write, WRITE_AFTER_MS).unref();
  process.once('exit', write);
}

function writeCache(file: string, key: string, data: Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, Buffer.concat([Buffer.from(`${key} ${sha256(data)}\n`, 'latin1'), data]), {
      mode: 0o600,
    });
    renameSync(temporary, file);
    debug('wrote %s', file);
  } catch (error) {
    // A read-only or full disk: the next run compiles as this one did.
    debug('cannot write %s: %s', file, (error as Error).message);
    rmSync(temporary, { force: true });
  }
}
