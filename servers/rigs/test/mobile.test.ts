import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findExecutable } from '../src/rigs/find-executable.js';
import { adbShellLine } from '../src/rigs/mobile/adb-server.js';
import { markedProcesses } from '../src/rigs/process-group.js';
import { rigsFixture } from './fixture.js';

/** Loopback ports something listens on, from the kernel's own table. */
function listeningPorts(): number[] {
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[3] === '0A')
      .map((fields) => Number.parseInt(fields[1]?.split(':')[1] ?? '0', 16)),
  );
}

describe('adb shell lines', () => {
  const tricky = [
    'echo',
    "it's",
    'a; rm -rf /',
    '$(id)',
    '`id`',
    'x | cat',
    '> /tmp/owned',
    '*',
    'two\nlines',
    '',
    "'",
    '"double"',
    '\\back',
  ];

  it('reach a POSIX shell as the very arguments given, metacharacters and all', () => {
    // The device's shell parses the joined line as sh does: sh here stands in for it.
    const echoed = execFileSync('sh', ['-c', `printf '[%s]' ${adbShellLine(tricky.slice(1))}`], {
      encoding: 'utf8',
    });
    expect(echoed).toBe(
      tricky
        .slice(1)
        .map((arg) => `[${arg}]`)
        .join(''),
    );
  });
});

describe('mobile_use', () => {
  it.skipIf(!findExecutable(['adb']))(
    'says honestly there is no device, through a private adb server it stops, never 5037',
    { timeout: 60_000 },
    async () => {
      const sharedBefore = listeningPorts().includes(5037);
      const fx = await rigsFixture();
      try {
        const s = await fx.connect();
        const said = await s.fails('mobile_use', { workspace_id: 'alpha', action: 'command', argv: ['id'] });
        expect(said).toMatch(
          /^no device or emulator: adb \(a private server on port (\d+)\) lists none; (no \/dev\/kvm here for an emulator|start an Android emulator), or attach a device with USB debugging on\.$/,
        );
        const port = Number(/port (\d+)/.exec(said)?.[1]);
        expect(port).not.toBe(5037);
        expect(listeningPorts()).not.toContain(port);
        expect(listeningPorts().includes(5037)).toBe(sharedBefore);
        expect(markedProcesses(fx.dataDir)).toEqual([]);
        expect(fx.rigs.list('alpha')).toEqual([]);
        const listed = await s.ok<{ surfaces: { surface: string; ready: boolean; detail: string }[] }>(
          'rig_list',
          { workspace_id: 'alpha' },
        );
        expect(listed.surfaces.find((surface) => surface.surface === 'mobile')?.detail).toMatch(
          /^adb at .*private adb server/,
        );
      } finally {
        await fx.close();
      }
    },
  );

  it('refuses an empty argv with the field named', async () => {
    const fx = await rigsFixture();
    try {
      const s = await fx.connect();
      expect(await s.fails('mobile_use', { workspace_id: 'alpha', action: 'command', argv: [] })).toMatch(
        /argv/,
      );
    } finally {
      await fx.close();
    }
  });
});
