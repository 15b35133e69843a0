import { watch } from 'node:fs';
import path from 'node:path';

/**
 * Calls `onChange` after `file` changes, and on SIGHUP. The folder is watched rather than the
 * file, because editors save by writing a new file and renaming it over the old one.
 */
export function watchConfig(file: string, onChange: (why: string) => void, debounceMs = 200): () => void {
  let timer: NodeJS.Timeout | undefined;
  const name = path.basename(file);
  const watcher = watch(path.dirname(path.resolve(file)), (_event, changed) => {
    if (changed !== null && changed !== name) return;
    clearTimeout(timer);
    timer = setTimeout(() => onChange(`${name} changed`), debounceMs);
  });
  const onHangup = () => onChange('SIGHUP');
  process.on('SIGHUP', onHangup);
  return () => {
    clearTimeout(timer);
    watcher.close();
    process.off('SIGHUP', onHangup);
  };
}
