import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The sha256 of an open file, read from its start; the handle stays open. */
export async function sha256File(file: FileHandle): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of file.createReadStream({ start: 0, autoClose: false }))
    hash.update(chunk as Buffer);
  return hash.digest('hex');
}
