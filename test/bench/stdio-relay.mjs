// The least a hop over stdio costs in Node, as the floor a stdio proxy is compared with: a
// process that starts a server and pipes its own stdin to the server's and the server's stdout
// to its own, reading nothing (no parsing, no policy, no audit). It ends with its input (the
// server then reads the end of its own) or with the server.
// Usage: node stdio-relay.mjs COMMAND [ARGS...]
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const server = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(server.stdin);
server.stdout.pipe(process.stdout);
// A server gone mid-write, or a client gone: nothing left to relay.
server.stdin.on('error', () => process.exit(1));
process.stdout.on('error', () => server.kill());
server.once('error', (error) => {
  process.stderr.write(`stdio-relay: cannot start ${command}: ${error.message}\n`);
  process.exit(1);
});
server.once('exit', (code) => process.exit(code ?? 1));
process.once('SIGTERM', () => server.kill());
