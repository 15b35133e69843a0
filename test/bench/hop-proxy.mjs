// The least a hop between two processes costs in Node, as floors a replica's forward is compared
// with (the fleet bench puts each in front of a session's owner). By default an HTTP proxy that
// passes each request to one target over kept-alive connections and streams the answer back, with
// nothing else (no router, no body parsing, no lookup); with --tcp, less still: each connection's
// bytes piped to the target and back, no HTTP read at all, as only a hop below HTTP can do.
// Usage: node hop-proxy.mjs TARGET_ORIGIN [--tcp]
import http from 'node:http';
import net from 'node:net';

const target = new URL(process.argv[2]);

function httpProxy() {
  const agent = new http.Agent({ keepAlive: true });
  return http.createServer((req, res) => {
    const outgoing = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outgoing.on('error', () => res.destroy());
    req.pipe(outgoing);
  });
}

function tcpPipe() {
  // No Nagle on either side, as Node's HTTP sockets have none: a small answer waits for nothing.
  return net.createServer({ noDelay: true }, (client) => {
    const upstream = net.connect({ port: Number(target.port), host: target.hostname, noDelay: true });
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
}

const server = process.argv.includes('--tcp') ? tcpPipe() : httpProxy();
server.listen(0, '127.0.0.1', () => {
  console.log(`hop proxy listening on http://127.0.0.1:${server.address().port}`);
});
process.once('SIGTERM', () => process.exit(0));
