import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Server } from '@modelcontextprotocol/server';
import { packageVersion } from '@toolmesh/core';

export interface InProcessClient {
  client: Client;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * Compiles a tool's output schema when a result of that tool is first checked, not when the
 * tools are listed: the SDK client compiles every listed tool's schema at once, which was most
 * of what `toolmesh tools` cost, though a one-shot command calls one tool at most.
 */
class CompiledWhenUsed implements jsonSchemaValidator {
  readonly #compiler = new AjvJsonSchemaValidator();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let compiled: JsonSchemaValidator<T> | undefined;
    return (input) => {
      compiled ??= this.#compiler.getValidator<T>(schema);
      return compiled(input);
    };
  }
}

/**
 * An MCP client of a session server in this process, so one-shot commands see exactly what a
 * connected client sees (the mode's tools, its refusals, the audit) without a transport.
 */
export async function connectInProcess(server: Server): Promise<InProcessClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client(
    { name: 'toolmesh-cli', version: packageVersion(import.meta.url) },
    { jsonSchemaValidator: new CompiledWhenUsed() },
  );
  // A v2 server serves a 2025 session over the v1 SDK's transports as well.
  await server.connect(serverSide as Parameters<Server['connect']>[0]);
  await client.connect(clientSide);
  return {
    client,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The text blocks of a result, as a person reads them. */
export function textOf(result: CallToolResult): string {
  return result.content
    .filter((block): block is { type: 'text'; text: string } => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
}
