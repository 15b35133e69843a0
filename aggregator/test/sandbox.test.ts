import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { resultText, spawnStdioClient } from '@toolmesh/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BWRAP_VARIABLE, findBwrap } from '../src/sandbox/find-bwrap.js';
import { isPassedIntoSandbox } from '../src/sandbox/sandbox-environment.js';
import {
  FS_BIN,
  type Harness,
  processesTagged,
  STUBBORN_SERVER,
  serveToolmesh,
  startHarness,
  TOOLMESH_BIN,
  until,
} from './harness.js';

const PROBE = fileURLToPath(new URL('./fixtures/probe-server.mjs', import.meta.url));

function probe(extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: [PROBE], ...extra };
}

/** `toolmesh sandbox [flags] -- command…` from the built bin, with `env` over this process's. */
function sandboxRun(flags: string[], command: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [TOOLMESH_BIN, 'sandbox', ...flags, '--', ...command], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

/** A script in no package that prints the file named by its argument, or the error code. */
const READER_SCRIPT = `import { readFileSync } from 'node:fs';
try { process.stdout.write(readFileSync(process.argv[2], 'utf8')); } catch (error) { process.stdout.write(error.code); }
`;

let base: string;
let root: string;
let outside: string;
let secret: string;

beforeAll(() => {
  const bwrap = findBwrap();
  if (!bwrap.available)
    throw new Error(
      `the sandbox tests need a working bubblewrap: install it (apt-get install bubblewrap). ${bwrap.reason}`,
    );
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolmesh-sandbox-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(path.join(root, 'inside.txt'), 'inside the root\n');
  secret = path.join(outside, 'secret.txt');
  writeFileSync(secret, 'the secret outside\n');
  // A symlink in the root to a file outside it: a program without a path guard follows it.
  symlinkSync(secret, path.join(root, 'link-out.txt'));
});

afterAll(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('a sandboxed server sees only its roots', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      mcpServers: {
        jail: probe({ sandbox: 'required', roots: [root], cwd: root }),
        free: probe({ cwd: root }),
        // A cwd the sandbox does not show: it starts in its first root instead.
        astray: probe({ sandbox: 'required', roots: [root], cwd: outside }),
      },
    });
  });
  afterAll(() => harness.close());

  it('reads inside its root, and nothing outside it by any path, where the unsandboxed one reads it all', async () => {
    const client = await harness.connect();
    const read = (server: string, file: string) => client.call(`${server}__read_path`, { path: file });

    expect(resultText(await read('jail', path.join(root, 'inside.txt')))).toBe('inside the root\n');
    const ways = [
      secret,
      `/proc/self/root${secret}`,
      `/proc/self/cwd/../outside/secret.txt`,
      path.join(root, 'link-out.txt'),
    ];
    for (const way of ways) {
      // Without the sandbox each way reaches the host file: the test can tell the difference.
      expect(resultText(await read('free', way)), way).toBe('the secret outside\n');
      const jailed = await read('jail', way);
      expect(jailed.isError, way).toBe(true);
      expect(resultText(jailed), way).toMatch(/^ENOENT/);
    }
    await client.close();
  });

  it('has a private /tmp', async () => {
    const client = await harness.connect();
    const hostOnly = path.join(os.tmpdir(), `toolmesh-host-${randomUUID()}.txt`);
    writeFileSync(hostOnly, 'on the host');
    try {
      expect(resultText(await client.call('free__read_path', { path: hostOnly }))).toBe('on the host');
      expect(resultText(await client.call('jail__read_path', { path: hostOnly }))).toMatch(/^ENOENT/);
      const sandboxOnly = path.join('/tmp', `toolmesh-sandbox-${randomUUID()}.txt`);
      expect(resultText(await client.call('jail__write_path', { path: sandboxOnly, text: 'x' }))).toBe(
        'written',
      );
      expect(resultText(await client.call('jail__read_path', { path: sandboxOnly }))).toBe('x');
      expect(existsSync(sandboxOnly)).toBe(false);
    } finally {
      rmSync(hostOnly, { force: true });
    }
    await client.close();
  });

  it('runs in its own PID namespace', async () => {
    const client = await harness.connect();
    const jailed = JSON.parse(resultText(await client.call('jail__pid'))) as { pid: number; cwd: string };
    const free = JSON.parse(resultText(await client.call('free__pid'))) as { pid: number };
    // bwrap is pid 1 inside; the server comes next. Outside, pids are the host's.
    expect(jailed.pid).toBeLessThanOrEqual(3);
    expect(free.pid).toBeGreaterThan(3);
    expect(jailed.cwd).toBe(root);
    const astray = JSON.parse(resultText(await client.call('astray__pid'))) as { cwd: string };
    expect(astray.cwd).toBe(root);
    await client.close();
  });

  it('has no capabilities, even when toolmesh runs as root', async () => {
    const client = await harness.connect();
    const capabilities = async (server: string) =>
      /^CapEff:\s*([0-9a-f]+)$/m.exec(
        resultText(await client.call(`${server}__read_path`, { path: '/proc/self/status' })),
      )?.[1];
    expect(await capabilities('jail')).toBe('0000000000000000');
    // As root (CI, containers) an unsandboxed child has them all: the check can tell.
    if (process.getuid?.() === 0) expect(await capabilities('free')).not.toBe('0000000000000000');
    await client.close();
  });
});

describe('a sandboxed fs server', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      mcpServers: {
        // No --root: each follows its client's MCP roots, and its guard trusts whatever they are.
        // Roots reach a server only in a 2025 session (2026-07-28 deprecates them), so they speak 2025.
        fsjail: {
          command: process.execPath,
          args: [FS_BIN],
          sandbox: 'required',
          roots: [root],
          protocol: '2025',
        },
        fsfree: { command: process.execPath, args: [FS_BIN], protocol: '2025' },
      },
    });
  });
  afterAll(() => harness.close());

  it('cannot read outside its sandbox roots, whatever roots its client offers', async () => {
    // A client that names folders outside the sandbox's as its roots, one of them through
    // /proc/self/root. The fs server takes an offered root by its real path, so inside the sandbox
    // neither exists and its guard keeps the sandbox's root alone; that the sandbox itself confines
    // a server with no guard at all is the first test above.
    const offered = [root, outside, `/proc/self/root${outside}`].map((folder) => ({
      uri: pathToFileURL(folder).href,
    }));
    const client = await harness.connect({ capabilities: { roots: { listChanged: true } } });
    client.client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: offered }));
    await client.client.sendRootsListChanged();
    const readFile = (server: string, file: string) => client.call(`${server}__read_file`, { path: file });
    await until(async () => !(await readFile('fsfree', path.join(root, 'inside.txt'))).isError);
    await until(async () => !(await readFile('fsjail', path.join(root, 'inside.txt'))).isError);

    expect(resultText(await readFile('fsjail', path.join(root, 'inside.txt')))).toContain('inside the root');
    // Unsandboxed, the offered folder is a root.
    expect(resultText(await readFile('fsfree', secret))).toContain('the secret outside');
    for (const way of [secret, `/proc/self/root${secret}`]) {
      const jailed = await readFile('fsjail', way);
      expect(jailed.isError, way).toBe(true);
      expect(resultText(jailed), way).not.toContain('the secret outside');
    }
    await client.close();
  });
});

describe('the data directory in a sandbox', () => {
  let harness: Harness;
  let data: string;
  beforeAll(async () => {
    data = path.join(base, 'data');
    mkdirSync(path.join(data, 'aggregator'), { recursive: true });
    writeFileSync(path.join(data, 'aggregator', 'tokens.json'), 'toolmesh state');
    writeFileSync(path.join(data, 'notes.txt'), 'not toolmesh state');
    harness = await startHarness({
      mcpServers: {
        fs: {
          command: process.execPath,
          args: [FS_BIN, '--root', root],
          env: { TOOLMESH_DATA_DIR: data },
          sandbox: 'required',
          writableRoots: true,
        },
        // A root that holds the whole data directory still does not show toolmesh's own state.
        nosy: probe({ sandbox: 'required', roots: [data], env: { TOOLMESH_DATA_DIR: data } }),
      },
    });
  });
  afterAll(() => harness.close());

  it('gives a first-party server its own <data>/<server>/ folder, writable', async () => {
    const client = await harness.connect();
    const created = await client.call('fs__checkpoint_write', { action: 'create', paths: ['inside.txt'] });
    expect(created.isError, resultText(created)).toBeFalsy();
    // Only the sandboxed fs server uses this data directory: it wrote its database there.
    expect(existsSync(path.join(data, 'fs', 'checkpoints.sqlite'))).toBe(true);
    await client.close();
  });

  it('never shows <data>/aggregator', async () => {
    const client = await harness.connect();
    const read = (file: string) => client.call('nosy__read_path', { path: path.join(data, file) });
    expect(resultText(await read('notes.txt'))).toBe('not toolmesh state');
    expect(resultText(await read('aggregator/tokens.json'))).toMatch(/^ENOENT/);
    await client.close();
  });
});

describe('<data>/aggregator in a sandbox, whatever the paths', () => {
  const token = 'tm_local_secret_of_the_aggregator';
  let real: string;
  beforeAll(() => {
    // real/data is the data directory; datalink and rootlink reach it through symlinks.
    real = path.join(base, 'linked', 'real');
    mkdirSync(path.join(real, 'data', 'aggregator'), { recursive: true });
    writeFileSync(path.join(real, 'data', 'aggregator', 'local-token'), token);
    writeFileSync(path.join(real, 'data', 'notes.txt'), 'shown\n');
    symlinkSync(path.join(real, 'data'), path.join(base, 'linked', 'datalink'));
    symlinkSync(real, path.join(base, 'linked', 'rootlink'));
  });

  it('is hidden when the data directory is given through a symlink', () => {
    const result = sandboxRun(
      ['--root', real],
      [
        '/bin/cat',
        path.join(real, 'data', 'notes.txt'),
        path.join(real, 'data', 'aggregator', 'local-token'),
      ],
      { TOOLMESH_DATA_DIR: path.join(base, 'linked', 'datalink') },
    );
    // The root is shown, its notes with it; only the state folder is empty.
    expect(result.stdout).toBe('shown\n');
    expect(result.stderr).toContain('No such file or directory');
  });

  it('is hidden when the root is given through a symlink', () => {
    const rootlink = path.join(base, 'linked', 'rootlink');
    const result = sandboxRun(
      ['--root', rootlink],
      [
        '/bin/cat',
        path.join(rootlink, 'data', 'notes.txt'),
        path.join(rootlink, 'data', 'aggregator', 'local-token'),
      ],
      { TOOLMESH_DATA_DIR: path.join(real, 'data') },
    );
    expect(result.stdout).toBe('shown\n');
    expect(result.stderr).toContain('No such file or directory');
  });

  it('is created, private, before the sandbox starts, so a sandbox cannot plant state in it', () => {
    const fresh = path.join(base, 'fresh');
    mkdirSync(fresh);
    const data = path.join(fresh, 'data');
    // A writable root that holds a data directory toolmesh has not made yet.
    const result = sandboxRun(
      ['--root', fresh],
      [
        '/bin/sh',
        '-c',
        'mkdir -p "$TOOLMESH_DATA_DIR/aggregator" && echo tm_planted > "$TOOLMESH_DATA_DIR/aggregator/tokens.json"',
      ],
      { TOOLMESH_DATA_DIR: data },
    );
    // The empty folder that covers it is read-only, as all outside the roots: the write fails where it is made.
    expect(result.stderr).toMatch(/tokens\.json: Read-only file system/);
    expect(statSync(path.join(data, 'aggregator')).mode & 0o777).toBe(0o700);
    expect(existsSync(path.join(data, 'aggregator', 'tokens.json'))).toBe(false);
  });
});

describe('a program in no package', () => {
  it('is bound alone, not the home folder it sits in', () => {
    const home = path.join(base, 'home');
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    const key = path.join(home, '.ssh', 'id_ed25519');
    writeFileSync(key, 'PRIVATE KEY');
    const script = path.join(home, 'server.mjs');
    writeFileSync(script, READER_SCRIPT);
    // Unsandboxed the script reads the key: the sandboxed run can tell.
    expect(spawnSync(process.execPath, [script, key], { encoding: 'utf8' }).stdout).toBe('PRIVATE KEY');
    const result = sandboxRun([], [process.execPath, script, key], { HOME: home });
    expect(result.stdout, result.stderr).toBe('ENOENT');
  });

  it('is bound alone in /tmp, which stays private', () => {
    const id = randomUUID();
    const script = path.join('/tmp', `toolmesh-lone-${id}.mjs`);
    const hostFile = path.join('/tmp', `toolmesh-host-${id}.txt`);
    writeFileSync(script, READER_SCRIPT);
    writeFileSync(hostFile, 'on the host');
    try {
      expect(spawnSync(process.execPath, [script, hostFile], { encoding: 'utf8' }).stdout).toBe(
        'on the host',
      );
      const result = sandboxRun([], [process.execPath, script, hostFile]);
      expect(result.stdout, result.stderr).toBe('ENOENT');
    } finally {
      rmSync(script, { force: true });
      rmSync(hostFile, { force: true });
    }
  });
});

describe("a sandboxed server's default roots", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      workspaces: { web: { roots: [root] } },
      mcpServers: {
        // Shared servers: the workspace's root only when the entry names it.
        shared: probe({ sandbox: 'required' }),
        named: probe({ sandbox: 'required', roots: [root] }),
        // One instance per workspace, started with --root <its root>: that root is shown.
        each: probe({ sandbox: 'required', perWorkspace: true }),
      },
    });
  });
  afterAll(() => harness.close());

  it('are none for a shared server, its roots key or --root arguments otherwise', async () => {
    const client = await harness.connect({ workspace: 'web' });
    const read = (server: string) =>
      client.call(`${server}__read_path`, { path: path.join(root, 'inside.txt') });
    expect(resultText(await read('shared'))).toMatch(/^ENOENT/);
    expect(resultText(await read('named'))).toBe('inside the root\n');
    expect(resultText(await read('each'))).toBe('inside the root\n');
    await client.close();
  });
});

describe('a sandboxed server has no network unless its entry allows it', () => {
  let harness: Harness;
  let listener: net.Server;
  let port: number;
  beforeAll(async () => {
    listener = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as net.AddressInfo).port;
    harness = await startHarness({
      mcpServers: {
        offline: probe({ sandbox: 'required', roots: [root] }),
        online: probe({ sandbox: 'required', roots: [root], network: true }),
        free: probe(),
      },
    });
  });
  afterAll(async () => {
    await harness.close();
    listener.close();
  });

  it('cannot connect to a listener on 127.0.0.1; with network: true it can', async () => {
    const client = await harness.connect();
    const connect = (server: string) => client.call(`${server}__connect_port`, { host: '127.0.0.1', port });
    expect(resultText(await connect('free'))).toBe('connected');
    expect(resultText(await connect('online'))).toBe('connected');
    const offline = await connect('offline');
    expect(offline.isError).toBe(true);
    expect(resultText(offline)).toMatch(/^(ECONNREFUSED|ENETUNREACH)/);
    await client.close();
  });
});

describe('a sandboxed server gets an environment of allowlisted variables only', () => {
  let harness: Harness;
  // In the aggregator's environment: a sandbox takes its allowlisted variables from there.
  const planted = {
    OPENAI_API_KEY: 'sk-planted-in-the-aggregator',
    TOOLMESH_SECRET_TOKEN: 'planted-toolmesh-token',
    TOOLMESH_AUTH_BEARER: 'tm_leak',
    TOOLMESH_DB_URL: 'postgres://u:pw@h/db',
    // Allowlisted, and not in the SDK's default environment that unsandboxed servers get.
    LANGUAGE: 'xx_PROBE',
  };
  let saved: Record<string, string | undefined>;
  beforeAll(async () => {
    saved = Object.fromEntries(Object.keys(planted).map((name) => [name, process.env[name]]));
    Object.assign(process.env, planted);
    harness = await startHarness({
      mcpServers: {
        jail: probe({ sandbox: 'required', roots: [root], env: { PROBE_SETTING: 'from the entry' } }),
        free: probe({ env: { PROBE_SETTING: 'from the entry' } }),
      },
    });
  });
  afterAll(async () => {
    await harness.close();
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  });

  it('has no inherited secrets, its own entry env, and a private HOME', async () => {
    const client = await harness.connect();
    const env = JSON.parse(resultText(await client.call('jail__env'))) as Record<string, string>;
    const free = JSON.parse(resultText(await client.call('free__env'))) as Record<string, string>;
    // The aggregator's variables do reach the sandbox, where the unsandboxed child gets none of
    // them: so what is missing below is kept out by the allowlist, not by the SDK.
    expect(free.LANGUAGE).toBeUndefined();
    expect(env.LANGUAGE).toBe('xx_PROBE');
    for (const name of ['OPENAI_API_KEY', 'TOOLMESH_SECRET_TOKEN', 'TOOLMESH_AUTH_BEARER', 'TOOLMESH_DB_URL'])
      expect(env[name], name).toBeUndefined();
    expect(env.PROBE_SETTING).toBe('from the entry');
    expect(env.HOME).toBe('/home/sandbox');
    // PWD is bwrap's own, set where it starts the program.
    for (const name of Object.keys(env))
      expect(isPassedIntoSandbox(name) || ['HOME', 'PWD', 'PROBE_SETTING'].includes(name), name).toBe(true);
    // What the unsandboxed child gets besides (the login variables, the real HOME) is gone.
    expect(free.HOME).toBe(os.homedir());
    for (const name of ['USER', 'LOGNAME', 'SHELL']) if (free[name]) expect(env[name], name).toBeUndefined();
    await client.close();
  });
});

describe('sandboxed roots are read-only unless writableRoots', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      mcpServers: {
        reader: probe({ sandbox: 'required', roots: [root] }),
        writer: probe({ sandbox: 'required', roots: [root], writableRoots: true }),
      },
    });
  });
  afterAll(() => harness.close());

  it('refuses a write to a read-only root and lets one to a writable root through', async () => {
    const client = await harness.connect();
    const file = path.join(root, `written-${randomUUID()}.txt`);
    const refused = await client.call('reader__write_path', { path: file, text: 'no' });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toMatch(/^EROFS/);
    expect(existsSync(file)).toBe(false);
    expect(resultText(await client.call('writer__write_path', { path: file, text: 'yes' }))).toBe('written');
    expect(readFileSync(file, 'utf8')).toBe('yes');
    // Written as the user toolmesh runs as, not as some id of the sandbox's own.
    expect(statSync(file).uid).toBe(process.getuid?.());
    await client.close();
  });
});

describe('without a usable bwrap', () => {
  let harness: Harness;
  let missing: string;
  beforeAll(async () => {
    // TOOLMESH_BWRAP names the bwrap to use; naming one that is not there is a machine without it.
    missing = path.join(base, 'no-such-bwrap');
    process.env[BWRAP_VARIABLE] = missing;
    harness = await startHarness({
      mcpServers: {
        strict: probe({ sandbox: 'required', roots: [root] }),
        lenient: probe({ sandbox: 'preferred', roots: [root] }),
      },
    });
  });
  afterAll(async () => {
    await harness.close();
    delete process.env[BWRAP_VARIABLE];
  });

  it('does not start a server whose sandbox is required, and says why and how to fix it', () => {
    const strict = harness.aggregator.upstreams.get('strict');
    expect(strict?.state).not.toBe('ready');
    expect(strict?.lastError).toContain('not started: its sandbox is "required"');
    expect(strict?.lastError).toContain(`TOOLMESH_BWRAP is ${missing}, which is not an executable file`);
    expect(strict?.lastError).toContain('apt-get install bubblewrap');
    expect(strict?.lastError).toContain('"sandbox": "preferred"');
  });

  it('runs a server whose sandbox is preferred unsandboxed, with a warning', async () => {
    const lenient = harness.aggregator.upstreams.get('lenient');
    expect(lenient?.state).toBe('ready');
    expect(lenient?.sandboxWarning).toContain('running unsandboxed: its sandbox is "preferred"');
    expect(harness.logs.some((line) => line.includes('running unsandboxed'))).toBe(true);
    const client = await harness.connect();
    expect(resultText(await client.call('lenient__read_path', { path: secret }))).toBe(
      'the secret outside\n',
    );
    await client.close();
  });

  it('is reported by toolmesh doctor', () => {
    const config = path.join(base, 'doctor.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          strict: probe({ sandbox: 'required', roots: [root] }),
          lenient: probe({ sandbox: 'preferred', roots: [root] }),
        },
      }),
    );
    const result = spawnSync(process.execPath, [TOOLMESH_BIN, 'doctor', '--config', config], {
      env: { ...process.env, [BWRAP_VARIABLE]: missing },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/FAILED {2}strict: not started: its sandbox is "required"/);
    expect(result.stdout).toContain('apt-get install bubblewrap');
    expect(result.stdout).toMatch(/ok {6}lenient: \d+ tools/);
    expect(result.stdout).toMatch(/warning lenient: running unsandboxed/);
  });

  it('counts as unavailable on a platform other than Linux', () => {
    const availability = findBwrap(process.env, 'darwin');
    expect(availability.available).toBe(false);
    expect(!availability.available && availability.reason).toContain('need Linux');
  });
});

describe('toolmesh serve ending', () => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`by ${signal} leaves no sandboxed process behind, of a server that outlives its stdin either`, async () => {
      const tag = `sandbox-tag-${randomUUID()}`;
      const config = path.join(base, `orphans-${signal}.json`);
      const sandboxed = { sandbox: 'required', roots: [root] };
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            jail: probe({ args: [PROBE, tag], ...sandboxed }),
            stubborn: { command: process.execPath, args: [STUBBORN_SERVER, tag], ...sandboxed },
          },
        }),
      );
      const serving = serveToolmesh(['--config', config], base);
      serving.token.catch(() => undefined);
      try {
        // Two sandboxed servers and toolmesh start on a machine shared with other work.
        await until(() => serving.stderr().match(/\] ready: \d+ tools/g)?.length === 2, 30_000);
        // Each: bwrap outside, bwrap as pid 1 inside, the server.
        expect(processesTagged(tag)).toHaveLength(6);
        serving.child.kill(signal);
        await until(() => processesTagged(tag).length === 0);
      } finally {
        serving.child.kill('SIGKILL');
      }
    }, 60_000);
  }
});

describe('toolmesh sandbox', () => {
  it('runs an MCP stdio server sandboxed, with stdio passed through', async () => {
    const client = await spawnStdioClient(
      process.execPath,
      [TOOLMESH_BIN, 'sandbox', '--root', root, '--read-only', '--', process.execPath, PROBE],
      {
        // toolmesh sandbox gets the caller's whole environment, and takes the allowlisted part.
        env: {
          OPENAI_API_KEY: 'sk-in-the-callers-env',
          TOOLMESH_AUTH_BEARER: 'tm_leak',
          LANGUAGE: 'xx_PROBE',
        },
      },
    );
    try {
      const env = JSON.parse(resultText(await client.call('env'))) as Record<string, string>;
      expect(env.LANGUAGE).toBe('xx_PROBE');
      expect(env.OPENAI_API_KEY).toBeUndefined();
      expect(env.TOOLMESH_AUTH_BEARER).toBeUndefined();
      expect(resultText(await client.call('read_path', { path: path.join(root, 'inside.txt') }))).toBe(
        'inside the root\n',
      );
      expect(resultText(await client.call('read_path', { path: `/proc/self/root${secret}` }))).toMatch(
        /^ENOENT/,
      );
      expect(
        resultText(await client.call('write_path', { path: path.join(root, 'cli.txt'), text: 'no' })),
      ).toMatch(/^EROFS/);
    } finally {
      await client.close();
    }
  });

  it('runs the real fs server confined to its root', async () => {
    const client = await spawnStdioClient(process.execPath, [
      TOOLMESH_BIN,
      'sandbox',
      '--root',
      root,
      '--',
      process.execPath,
      FS_BIN,
      '--root',
      root,
    ]);
    try {
      expect(resultText(await client.call('read_file', { path: 'inside.txt' }))).toContain('inside the root');
    } finally {
      await client.close();
    }
  });

  it('passes the exit status through, and --env passes one variable', () => {
    const result = spawnSync(
      process.execPath,
      [TOOLMESH_BIN, 'sandbox', '--env', 'PICKED', '--', '/bin/sh', '-c', 'echo "$PICKED/$DROPPED"; exit 7'],
      { env: { ...process.env, PICKED: 'picked', DROPPED: 'dropped' }, encoding: 'utf8' },
    );
    expect(result.stdout).toBe('picked/\n');
    expect(result.status).toBe(7);
  });

  it('fails a write outside the roots visibly, and keeps one inside a root', () => {
    const written = path.join(root, 'kept.txt');
    const script = `for target in /tmp/lost.txt "$HOME/lost.txt" /lost.txt ${written}; do
      if echo data > "$target"; then echo "wrote $target"; else echo "refused $target"; fi
    done`;
    const result = sandboxRun(['--root', root], ['/bin/sh', '-c', script]);
    expect(result.stdout.trim().split('\n')).toEqual([
      'refused /tmp/lost.txt',
      'refused /home/sandbox/lost.txt',
      'refused /lost.txt',
      `wrote ${written}`,
    ]);
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(written, 'utf8')).toBe('data\n');
    const readOnly = sandboxRun(
      ['--root', root, '--read-only'],
      ['/bin/sh', '-c', `echo again > ${written}`],
    );
    expect(readOnly.status).not.toBe(0);
    expect(readFileSync(written, 'utf8')).toBe('data\n');
  });

  it('drops every capability', () => {
    const result = sandboxRun([], ['/bin/grep', 'CapEff', '/proc/self/status']);
    expect(result.stdout).toMatch(/^CapEff:\s*0{16}\n$/);
  });

  it('refuses to run unsandboxed when bwrap is missing', () => {
    const result = spawnSync(process.execPath, [TOOLMESH_BIN, 'sandbox', '--', '/bin/true'], {
      env: { ...process.env, [BWRAP_VARIABLE]: path.join(base, 'no-such-bwrap') },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('refusing to run unsandboxed');
    expect(result.stderr).toContain('apt-get install bubblewrap');
  });
});
