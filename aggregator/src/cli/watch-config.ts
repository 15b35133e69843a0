import { type FSWatcher, realpathSync, watch } from 'node:fs';
import path from 'node:path';

/**
 * Calls `onChange` after `file` changes, and on SIGHUP. Folders are watched rather than the
 * file, because editors save by writing a new file and renaming it over the old one; when the
 * file is a symlink, the folder of the file it points at is watched too, since saving there does
 * not touch the link.
 */
export function watchConfig(file: string, onChange: (why: string) => unknown, debounceMs = 200): () => void {
  let timer: NodeJS.Timeout | undefined;
  const name = path.basename(file);
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => onChange(`${name} changed`), debounceMs);
  };
  const watchEntry = (entry: string): FSWatcher =>
    watch(path.dirname(entry), (_event, changedName) => {
      if (changedName === null || changedName === path.basename(entry)) changed();
    });
  const link = path.resolve(file);
  const target = realpathSync(link);
  const watchers = [watchEntry(link), ...(target === link ? [] : [watchEntry(target)])];
  const onHangup = () => onChange('SIGHUP');
  process.on('SIGHUP', onHangup);
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
    process.off('SIGHUP', onHangup);
  };
}
