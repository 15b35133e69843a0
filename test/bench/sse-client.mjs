// A real SDK client over the legacy HTTP+SSE transport, for servers that speak only that.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';

export async function connectSseClient(url) {
  const client = new Client({ name: 'toolmesh-bench', version: '0.0.0' });
  await client.connect(new SSEClientTransport(new URL(url)));
  return {
    client,
    call: (name, args = {}) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  };
}
