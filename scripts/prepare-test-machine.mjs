// Run by `pnpm test` before the suites: the tests use real components that a fresh machine may
// lack. bubblewrap runs the sandbox tests' real sandboxes; chromium the dashboard's browser tests;
// a Redis at REDIS_URL (default redis://127.0.0.1:6379) backs the memory server's hot-memory tests
// and the fleet's; a PostgreSQL at 127.0.0.1:5432 the shared audit log's.
// A missing one is installed from Debian's packages where that can be done (root, or sudo, and
// apt-get), and a Redis and a PostgreSQL are started on loopback when none answers; otherwise this says what to
// install and stops.
import { execFileSync, spawnSync } from 'node:child_process';
import net from 'node:net';

const log = (line) => process.stderr.write(`prepare-test-machine: ${line}\n`);

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

let aptUpdated = false;

function aptInstall(debianPackage, why) {
  const asRoot = process.getuid?.() === 0;
  if (!has('apt-get') || (!asRoot && !has('sudo'))) {
    throw new Error(
      `${why} needs ${debianPackage}: install it (on Debian or Ubuntu: apt-get install ${debianPackage}).`,
    );
  }
  const apt = asRoot ? ['apt-get'] : ['sudo', '-n', 'apt-get'];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  log(`installing ${debianPackage} (${why})`);
  if (!aptUpdated) {
    execFileSync(apt[0], [...apt.slice(1), 'update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    aptUpdated = true;
  }
  execFileSync(apt[0], [...apt.slice(1), 'install', '-y', '-qq', debianPackage], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
}

/** Whether something that speaks Redis answers at the URL (a server asking for a password counts). */
function redisAnswers(url) {
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port || 6379), url.hostname);
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(/^(\+PONG|-NOAUTH)/.test(String(data))));
  });
}

async function ensureRedis() {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  if (await redisAnswers(url)) return;
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    throw new Error(
      `nothing answers at REDIS_URL ${url.host}, and only a loopback Redis can be started here.`,
    );
  }
  if (!has('redis-server')) aptInstall('redis-server', 'the memory server’s hot-memory tests');
  const port = url.port || '6379';
  log(`starting redis-server on 127.0.0.1:${port}`);
  execFileSync(
    'redis-server',
    ['--port', port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes'],
    { stdio: 'inherit' },
  );
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await redisAnswers(url)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`redis-server was started but nothing answers at ${url.host}.`);
}

/** Whether something accepts TCP connections at host:port. */
function listens(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => done(true));
  });
}

/**
 * The fleet's shared audit tests use the PostgreSQL at 127.0.0.1:5432 (trust auth): Debian's
 * cluster is started when nothing answers there, and installed first when missing.
 */
async function ensurePostgres() {
  if (await listens('127.0.0.1', 5432)) return;
  if (process.platform !== 'linux') throw new Error('nothing answers at 127.0.0.1:5432: start PostgreSQL.');
  if (!has('pg_ctlcluster')) aptInstall('postgresql', 'the shared audit log’s tests');
  const versions = execFileSync('ls', ['/etc/postgresql'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  if (versions.length === 0)
    throw new Error('postgresql is installed but has no cluster in /etc/postgresql.');
  const version = versions.sort((a, b) => Number(a) - Number(b)).at(-1);
  log(`starting PostgreSQL ${version} on 127.0.0.1:5432`);
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], {
    stdio: 'inherit',
  });
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await listens('127.0.0.1', 5432)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('PostgreSQL was started but nothing answers at 127.0.0.1:5432.');
}

try {
  if (process.platform === 'linux' && !has('bwrap')) aptInstall('bubblewrap', 'the sandbox tests');
  if (process.platform === 'linux' && !has('chromium-headless-shell') && !has('chromium')) {
    aptInstall('chromium-headless-shell', 'the rigs server’s browser tests');
  }
  // The rigs server's desktop tests: a virtual display, a window manager, input, screenshots, clipboard, xmessage.
  if (process.platform === 'linux' && !has('firefox-esr') && !has('firefox')) {
    aptInstall('firefox-esr', 'the rigs server’s Firefox tests');
  }
  if (process.platform === 'linux' && !has('WebKitWebDriver')) {
    aptInstall('webkit2gtk-driver', 'the rigs server’s WebKit tests');
  }
  if (process.platform === 'linux' && !has('chromium'))
    aptInstall('chromium', 'the dashboard’s browser tests');
  for (const [command, debianPackage] of [
    ['Xvfb', 'xvfb'],
    ['openbox', 'openbox'],
    ['xdotool', 'xdotool'],
    ['scrot', 'scrot'],
    ['xclip', 'xclip'],
    ['xmessage', 'x11-utils'],
    // The rigs server's mobile test: a private adb server that finds no device and says so.
    ['adb', 'adb'],
  ]) {
    if (process.platform === 'linux' && !has(command))
      aptInstall(debianPackage, 'the rigs server’s desktop tests');
  }
  await ensureRedis();
  await ensurePostgres();
} catch (error) {
  log(error.message);
  process.exit(1);
}
