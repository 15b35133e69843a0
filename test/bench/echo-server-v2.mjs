// The bench's echo tool on the SDK's v2 server over stdio, which serves both protocol eras (the
// client's first message picks one): the direct peer of a 2026-07-28 client, as echo-server.mjs
// (the v1 SDK, 2025 only) is a 2025 client's.
import { Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { answerEcho, ECHO } from './echo-tool.mjs';

serveStdio(() => {
  const server = new Server({ name: 'echo', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({ tools: [ECHO] }));
  server.setRequestHandler('tools/call', answerEcho);
  return server;
});
