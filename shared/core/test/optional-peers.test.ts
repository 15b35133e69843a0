import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { missingOptionalPeers, requireOptionalPeers } from '../src/optional-peers.js';

// A package installed the way npm lays one out: its manifest declares two optional peers, and
// only one of them sits in a node_modules folder above it.
const base = mkdtempSync(path.join(os.tmpdir(), 'toolmesh-optional-peers-'));
const holder = path.join(base, 'node_modules', '@example', 'server');
mkdirSync(path.join(holder, 'dist'), { recursive: true });
writeFileSync(
  path.join(holder, 'package.json'),
  JSON.stringify({
    name: '@example/server',
    version: '1.0.0',
    peerDependencies: { present: '^2.0.0', absent: '^3.1.0', 'also-absent': '~4.0.0' },
  }),
);
mkdirSync(path.join(base, 'node_modules', 'present'), { recursive: true });
writeFileSync(path.join(base, 'node_modules', 'present', 'package.json'), '{"name":"present"}');
const moduleUrl = pathToFileURL(path.join(holder, 'dist', 'index.js')).href;

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('optional peers', () => {
  it('finds a peer installed in a node_modules folder above the package', () => {
    expect(missingOptionalPeers(moduleUrl, ['present'], 'serving')).toBeUndefined();
    expect(() => requireOptionalPeers(moduleUrl, ['present'], 'serving')).not.toThrow();
  });

  it('names what is missing and the npm command, with the ranges of the manifest', () => {
    expect(missingOptionalPeers(moduleUrl, ['present', 'absent'], 'serving over HTTP needs them')).toBe(
      'serving over HTTP needs them, but the absent package is not installed beside @example/server: run `npm install absent@^3.1.0` in the folder the server is installed in',
    );
    expect(() => requireOptionalPeers(moduleUrl, ['absent', 'also-absent'], 'a feature needs them')).toThrow(
      'a feature needs them, but the packages absent, also-absent are not installed beside @example/server: run `npm install absent@^3.1.0 also-absent@~4.0.0`',
    );
  });
});
