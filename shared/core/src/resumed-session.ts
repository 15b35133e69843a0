import type { InitializeRequest, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SessionTransport } from './session-transport.js';

interface InitializedState {
  sessionId?: string;
  _initialized?: boolean;
}

/**
 * A Streamable HTTP transport already initialized with `sessionId`: a session another process
 * opened, carried on here without its client initializing again. The SDK has no public way to
 * do that, so what its own initialize handling sets is set here, and checked to exist, so that
 * an SDK that changed fails loudly instead of refusing every request with a 400.
 */
export function resumedTransport(sessionId: string): SessionTransport {
  const transport = new SessionTransport({ sessionIdGenerator: () => sessionId });
  const inner = (transport as unknown as { _webStandardTransport?: InitializedState })._webStandardTransport;
  if (!inner || !('_initialized' in inner))
    throw new Error(
      'this version of @modelcontextprotocol/sdk cannot resume a session: its Streamable HTTP transport changed shape',
    );
  inner.sessionId = sessionId;
  inner._initialized = true;
  return transport;
}

/**
 * Hands the client's original initialize request to the server now connected to `transport`,
 * so it knows the client's capabilities and version as before; its answer was already given
 * once, by the process that opened the session, and is swallowed.
 */
export async function replayInitialize(
  transport: SessionTransport,
  params: InitializeRequest['params'],
): Promise<void> {
  const id = `toolmesh-resume-${transport.sessionId}`;
  const send = transport.send.bind(transport);
  const answered = new Promise<void>((resolve) => {
    transport.send = async (message: JSONRPCMessage, options) => {
      if ('id' in message && message.id === id && !('method' in message)) {
        transport.send = send;
        resolve();
        return;
      }
      return send(message, options);
    };
  });
  transport.onmessage?.({ jsonrpc: '2.0', id, method: 'initialize', params });
  await answered;
  transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/initialized' });
}
