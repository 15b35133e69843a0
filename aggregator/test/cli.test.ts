import { execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FS_BIN, fixture, type Harness, startHarness } from './harness.js';

const BIN = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const exec = promisify(execFile);

let scratch: Harness;
let folder: string;
beforeAll(async () => {
  scratch = await startHarness({});
  folder = scratch.folder;
  writeFileSync(path.join(folder, 'hello.txt'), 'hello from the shell\n');
  writeFileSync(
    path.join(folder, 'toolmesh.json'),
    JSON.stringify({
      mcpServers: {
        fs: { command: process.execPath, args: [FS_BIN, '--root', folder] },
        'my.tools': fixture('a'),
        my_tools: fixture('b'),
        broken: { command: process.execPath, args: ['-e', 'process.exit(7)'] },
      },
    }),
  );
});
afterAll(() => scratch.close());

function toolmesh(...args: string[]) {
  return exec(process.execPath, [BIN, ...args], { cwd: folder, timeout: 30_000 }).then(
    (result) => ({ ...result, code: 0 }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

/** Runs the bin until its stderr matches `pattern`, then ends it; resolves to that stderr. */
function spawnUntil(args: string[], pattern: RegExp): Promise<string> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: folder, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (pattern.test(stderr)) child.kill('SIGTERM');
    });
    child.once('exit', () => (pattern.test(stderr) ? resolve(stderr) : reject(new Error(stderr))));
  });
}

describe('the toolmesh CLI', () => {
  it('lists, searches and calls tools from ./toolmesh.json', async () => {
    const tools = await toolmesh('tools');
    expect(tools.stdout).toMatch(/^fs__read_file\s/m);
    const json = JSON.parse((await toolmesh('tools', '--json')).stdout) as { name: string }[];
    expect(json.map((tool) => tool.name)).toContain('fs__search_text');
    expect((await toolmesh('search', 'read', 'a', 'text', 'file')).stdout).toMatch(/^fs__read_file/);
    const called = await toolmesh('call', 'fs__read_file', '{"path":"hello.txt"}');
    expect(called.stdout).toContain('hello from the shell');
  });

  it('explains bad calls with exit code 2, and failed tools with 1', async () => {
    const badJson = await toolmesh('call', 'fs__read_file', '{path}');
    expect(badJson).toMatchObject({ code: 2 });
    expect(badJson.stderr).toMatch(/not JSON.*quote them/);
    const refused = await toolmesh('call', 'fs__read_file', '{"path":"/etc/passwd"}');
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.stdout).toMatch(/outside-roots/);
    expect(await toolmesh('frobnicate')).toMatchObject({ code: 2 });
  });

  it('refuses a flag the command does not take, naming the command and its flags', async () => {
    const mixed = await toolmesh('tools', '--force', '--reason', 'x', '--watch');
    expect(mixed).toMatchObject({ code: 2, stdout: '' });
    expect(mixed.stderr).toMatch(/tools: Unknown option '--force'; it takes .*--json/);
    const watchingDecision = await toolmesh('approvals', 'approve', 'some-id', '--watch');
    expect(watchingDecision).toMatchObject({ code: 2 });
    expect(watchingDecision.stdout).toMatch(/usage: toolmesh approvals approve <id>/);
    expect((await toolmesh('approvals', '--reason', 'x')).code).toBe(2);
    expect((await toolmesh('init', '--watch')).stderr).toMatch(/init: Unknown option '--watch'/);
    for (const [command, ...args] of [
      ['approvals', '--bogus'],
      ['token', 'list', '--bogus'],
    ]) {
      const unknown = await toolmesh(command!, ...args);
      expect(unknown).toMatchObject({ code: 2 });
      expect(unknown.stderr).toMatch(new RegExp(`${command}: Unknown option '--bogus'; it takes --`));
      expect(unknown.stderr).not.toMatch(/TypeError|\n\s+at /);
    }
  });

  it('checks arguments and numeric flags itself, naming the flag, the value and the range', async () => {
    const array = await toolmesh('call', 'fs__read_file', '[1,2]');
    expect(array).toMatchObject({ code: 2 });
    expect(array.stderr).toMatch(/the arguments must be a JSON object of named arguments.*not an array/);
    expect(array.stderr).not.toMatch(/call_tool|expected record/);
    const text = await toolmesh('call', 'fs__read_file', '"hello.txt"');
    expect(text).toMatchObject({ code: 2 });
    expect(text.stderr).toMatch(/not a string/);
    // A JSON object the shell split in two is not run with half of it.
    const split = await toolmesh('call', 'fs__read_file', '{"path":"hello.txt"}', '{"offset":1}');
    expect(split).toMatchObject({ code: 2, stdout: '' });
    expect(split.stderr).toMatch(
      /call takes a tool name and one JSON object of arguments, not also "\{"offset":1\}"/,
    );
    const letters = await toolmesh('search', 'read', 'file', '--limit', 'abc');
    expect(letters).toMatchObject({ code: 2 });
    expect(letters.stderr).toMatch(/--limit takes a whole number from 1 to 25, not "abc"/);
    expect((await toolmesh('search', 'read', 'file', '--limit', '26')).stderr).toMatch(/not "26"/);
    expect((await toolmesh('serve', '--port', '70000')).stderr).toMatch(
      /--port takes a whole number from 0 to 65535, not "70000"/,
    );
  });

  it('points a mistyped tool name to the nearest names and to toolmesh search', async () => {
    const typo = await toolmesh('call', 'fs__raed_file', '{"path":"hello.txt"}');
    expect(typo).toMatchObject({ code: 2 });
    expect(typo.stderr).toMatch(
      /No tool named fs__raed_file\. Did you mean fs__read_file.*\? Find tools with toolmesh search "<words>"\./,
    );
    expect(typo.stderr).not.toMatch(/search_tool_bm25/);
  });

  it('doctor names the failing server, the renamed collision, and exits 1', async () => {
    const doctor = await toolmesh('doctor');
    expect(doctor).toMatchObject({ code: 1 });
    expect(doctor.stdout).toMatch(/^ok\s+fs: 10 tools/m);
    expect(doctor.stdout).toMatch(/^FAILED\s+broken: /m);
    expect(doctor.stdout).toMatch(
      /renamed my_tools\/echo to my_tools__echo_[0-9a-f]{6}: my_tools__echo was taken by my\.tools\/echo/,
    );
  });

  it('doctor says what to check for a URL server, a command not on PATH, and a mistyped key', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const config = path.join(folder, 'doctor.json');
    writeFileSync(
      config,
      JSON.stringify({
        exposre: 'discovery',
        inputs: [],
        mcpServers: {
          absent: { command: 'toolmesh-no-such-program' },
          remote: { url: `http://127.0.0.1:${port}/mcp` },
        },
      }),
    );
    const doctor = await toolmesh('doctor', '--config', config);
    expect(doctor).toMatchObject({ code: 1 });
    expect(doctor.stdout).toMatch(/^warning .*doctor\.json: exposre: .*did you mean exposure\?$/m);
    expect(doctor.stdout).not.toMatch(/inputs/);
    expect(doctor.stdout).toMatch(
      /^FAILED\s+absent: .*\n\s+toolmesh-no-such-program was not found on PATH: install it, or give its full path as "command"/m,
    );
    expect(doctor.stdout).toMatch(
      new RegExp(
        `^FAILED\\s+remote: .*\\n\\s+check that the URL http://127\\.0\\.0\\.1:${port}/mcp is right, that the server there is running, and that its headers \\(auth\\)`,
        'm',
      ),
    );
    expect(doctor.stdout).not.toMatch(/env and args/);
  });

  it('says at start that nothing is served and how to add servers, and doctor fails', async () => {
    const empty = path.join(folder, 'empty.json');
    writeFileSync(empty, JSON.stringify({ mcpServers: { off: { command: 'x', disabled: true } } }));
    const doctor = await toolmesh('doctor', '--config', empty);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(
      /^FAILED {2}nothing is served: .*empty\.json has no enabled server; add one under "mcpServers"/m,
    );
    const served = await spawnUntil(['serve', '--config', empty], /nothing is served/);
    expect(served).toMatch(/nothing is served: .*empty\.json has no enabled server.*toolmesh init/);
  });

  it('names a server that failed to start with the cause from its stderr, in doctor and the start banner', async () => {
    const config = path.join(folder, 'unpublished.json');
    const npm404 =
      "console.error('npm error code E404'); console.error('npm error 404 Not Found - GET https://registry.npmjs.org/@toolmesh%2fserver-nope'); process.exit(1)";
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          fs: { command: process.execPath, args: [FS_BIN, '--root', folder] },
          nope: { command: process.execPath, args: ['-e', npm404] },
        },
      }),
    );
    const doctor = await toolmesh('doctor', '--config', config);
    expect(doctor.stdout).toMatch(/^FAILED\s+nope: .*its stderr ended: .*npm error 404 Not Found - GET/m);
    const banner = await spawnUntil(
      ['serve', '--config', config, '--transport', 'http', '--port', '0', '--log-level', 'warning'],
      /listening on|FAILED nope.*\n/,
    );
    expect(banner).toMatch(/^servers ready: fs \(\d+ tools\)$/m);
    expect(banner).toMatch(
      /^FAILED nope: .*npm error 404 Not Found.*; retrying in \d+ s \(toolmesh doctor says what to check\)$/m,
    );
    // The banner's commands run as written, or as it says toolmesh runs here when not on PATH.
    expect(banner).toMatch(/decided with `toolmesh approvals --watch`/);
    const invocation = /run the toolmesh commands named here as `(.+) …`/.exec(banner)?.[1] ?? 'toolmesh';
    const [command = '', ...words] = invocation.split(' ');
    expect((await exec(command, [...words, 'approvals'], { cwd: folder })).stdout).toBe(
      'no approval is pending\n',
    );
  });

  it('init writes a starter config and will not overwrite one', async () => {
    const elsewhere = path.join(folder, 'sub');
    await exec('mkdir', ['-p', elsewhere]);
    await exec(process.execPath, [BIN, 'init'], { cwd: elsewhere });
    const written = JSON.parse(readFileSync(path.join(elsewhere, 'toolmesh.json'), 'utf8'));
    // The installed fs server, by absolute path: the config works here, published or not.
    expect(written.mcpServers.fs).toEqual({ command: process.execPath, args: [FS_BIN, '--root', '.'] });
    writeFileSync(path.join(elsewhere, 'note.txt'), 'written by init\n');
    const doctor = await exec(process.execPath, [BIN, 'doctor'], { cwd: elsewhere });
    expect(doctor.stdout).toMatch(/^ok\s+fs: \d+ tools/m);
    const read = await exec(process.execPath, [BIN, 'call', 'fs__read_file', '{"path":"note.txt"}'], {
      cwd: elsewhere,
    });
    expect(read.stdout).toContain('written by init');
    const again = await exec(process.execPath, [BIN, 'init'], { cwd: elsewhere }).catch((error) => error);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists; pass --force/);
  });

  it('lists tools as a mode sees them, and refuses calls the mode blocks', async () => {
    const planned = await toolmesh('tools', '--mode', 'plan');
    expect(planned.stdout).toMatch(/^fs__read_file\s/m);
    expect(planned.stdout).not.toMatch(/^fs__copy_file\s/m);
    const blocked = await toolmesh(
      'call',
      'fs__copy_file',
      '{"source":"hello.txt","destination":"again.txt"}',
      '--mode',
      'plan',
    );
    expect(blocked.code).toBe(1);
    expect(blocked.stdout).toMatch(/blocked in plan mode/);
  });

  it('approvals lists, decides, and says when an id is not pending', async () => {
    expect((await toolmesh('approvals')).stdout).toBe('no approval is pending\n');
    const unknown = await toolmesh('approvals', 'approve', 'no-such-id', '--reason', 'sure');
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(/approval no-such-id is not pending/);
  });

  it('refuses an invalid config naming the key', async () => {
    const bad = path.join(folder, 'bad.json');
    writeFileSync(bad, JSON.stringify({ mcpServers: { x: { url: 'not a url' } } }));
    const result = await toolmesh('tools', '--config', bad);
    expect(result).toMatchObject({ code: 2 });
    expect(result.stderr).toMatch(/mcpServers\.x/);
  });
});
