import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { userdiffAttributes } from './languages.js';

let written: string | undefined;

/**
 * The config that makes git name each hunk by its enclosing function: `core.attributesFile` set
 * to our attributes (each extension → a diff driver), plus the funcname rule of our own driver.
 * The file is written once per process into a private temporary folder (mode 0700), so nobody
 * else can change what it says. Attributes of the repository itself still take precedence.
 */
export function userdiffConfig(): [string, string][] {
  const { attributes, config } = userdiffAttributes();
  if (!written) {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-git-'));
    const file = path.join(folder, 'attributes');
    writeFileSync(file, attributes, { mode: 0o600 });
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    written = file;
  }
  return [['core.attributesFile', written], ...config];
}
