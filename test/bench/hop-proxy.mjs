// The least a hop between two HTTP processes costs in Node: a proxy that passes each request to
// one target over kept-alive connections and streams the answer back, with nothing else (no
// router, no body parsing, no lookup). The fleet bench puts it in front of a session's owner, as
// the floor a replica's forward is compared with. Usage: node hop-proxy.mjs TARGET_ORIGIN
import http from 'node:http';

const target = new URL(process.argv[2]);
const agent = new http.Agent({ keepAlive: true });
const server = http.createServer((req, res) => {
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
server.listen(0, '127.0.0.1', () => {
  console.log(`hop proxy listening on http://127.0.0.1:${server.address().port}`);
});
process.once('SIGTERM', () => process.exit(0));
