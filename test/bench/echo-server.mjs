// The smallest useful MCP server, written with the plain SDK: one `echo` tool, so that a timed
// call is nothing but transport and proxy. Over stdio by default; with --http it serves
// Streamable HTTP at /mcp (stateful sessions, as the SDK does by default) and legacy HTTP+SSE
// at /sse, on 127.0.0.1 and a free port, and says `listening on <url>` on stderr when ready.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { answerEcho, ECHO } from './echo-tool.mjs';

function echoServer() {
  const server = new Server({ name: 'echo', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [ECHO] }));
  server.setRequestHandler(CallToolRequestSchema, answerEcho);
  return server;
}

async function readJson(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body ? JSON.parse(body) : undefined;
}

function serveHttp() {
  const streams = new Map();
  const legacy = new Map();
  const http = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/mcp') {
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? streams.get(id) : undefined;
      if (!transport) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (sessionId) => streams.set(sessionId, transport),
        });
        transport.onclose = () => streams.delete(transport.sessionId);
        await echoServer().connect(transport);
      }
      await transport.handleRequest(req, res, req.method === 'POST' ? await readJson(req) : undefined);
    } else if (url.pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      legacy.set(transport.sessionId, transport);
      res.on('close', () => legacy.delete(transport.sessionId));
      await echoServer().connect(transport);
    } else if (url.pathname === '/messages' && req.method === 'POST') {
      const transport = legacy.get(url.searchParams.get('sessionId') ?? '');
      if (transport) await transport.handlePostMessage(req, res, await readJson(req));
      else res.writeHead(404).end();
    } else {
      res.writeHead(404).end();
    }
  });
  http.listen(0, '127.0.0.1', () => {
    process.stderr.write(`listening on http://127.0.0.1:${http.address().port}/mcp\n`);
  });
}

if (process.argv.includes('--http')) serveHttp();
else await echoServer().connect(new StdioServerTransport());
