// Starts the built toolmesh-fs over real stdio with the real SDK client, and reads its memory.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnStdioClient } from '@toolmesh/core/testing';

/** The bin of the workspace's @toolmesh/server-fs (dist/index.js beside its dist/server.js). */
export const FS_BIN = path.join(
  path.dirname(fileURLToPath(import.meta.resolve('@toolmesh/server-fs'))),
  'index.js',
);

export async function startFs({ roots, dataDir }) {
  const args = [FS_BIN, ...roots.flatMap((root) => ['--root', root]), '--log-level', 'warning'];
  const spawned = await spawnStdioClient(process.execPath, args, { env: { TOOLMESH_DATA_DIR: dataDir } });
  return {
    ...spawned,
    /** Calls a tool and returns its structured content; a tool error is thrown. */
    async tool(name, args) {
      const result = await spawned.call(name, args);
      if (result.isError) {
        const text = result.content.map((block) => block.text ?? '').join('\n');
        throw new Error(`${name} ${JSON.stringify(args)} failed: ${text}`);
      }
      return result.structuredContent;
    },
  };
}

/** VmRSS and VmHWM (peak) of a process, in KiB, from /proc/<pid>/status. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  // RssAnon is the process's own memory: VmRSS also counts the pages of files it maps (the node
  // executable above all), which every Node process on the machine shares.
  return { rssKiB: field('VmRSS'), hwmKiB: field('VmHWM'), anonKiB: field('RssAnon') };
}
