import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';

interface Asset {
  body: Buffer;
  gzipped: Buffer;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

/** Where the build puts the dashboard's files: `dist/ui`, beside the bundled code. */
export const BUILT_ASSETS = fileURLToPath(new URL('./ui/', import.meta.url));

/**
 * The dashboard's built files, read and compressed once at start: the set is small and fixed,
 * and serving from memory keeps a first load fast without a compression middleware.
 */
export class StaticAssets {
  readonly #assets = new Map<string, Asset>();

  constructor(readonly folder: string = BUILT_ASSETS) {
    if (!existsSync(folder)) return;
    for (const name of readdirSync(folder)) {
      const type = TYPES[path.extname(name)];
      if (!type) continue;
      const body = readFileSync(path.join(folder, name));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      this.#assets.set(name, { body, gzipped: gzipSync(body, { level: 9 }), type, etag });
    }
  }

  get built(): boolean {
    return this.#assets.has('index.html');
  }

  /** Sends one file, gzipped when the browser takes it; false when there is no such file. */
  send(name: string, req: Request, res: Response): boolean {
    const asset = this.#assets.get(name);
    if (!asset) return false;
    res.set('Content-Type', asset.type);
    res.set('ETag', asset.etag);
    res.set('Vary', 'Accept-Encoding');
    // Pages revalidate (they follow the build); scripts and styles are checked by ETag too, as
    // their names carry no hash, but a match costs an empty 304.
    res.set('Cache-Control', 'no-cache');
    if (req.headers['if-none-match'] === asset.etag) {
      res.status(304).end();
      return true;
    }
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    if (gzip) res.set('Content-Encoding', 'gzip');
    res.end(gzip ? asset.gzipped : asset.body);
    return true;
  }
}
