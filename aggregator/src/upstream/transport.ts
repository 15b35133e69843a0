import type { Stream } from 'node:stream';
import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fetchWithOwnSignal } from '@toolmesh/core';
import { isStdioServer, type RemoteServerConfig, type ServerConfig } from '../config/schema.js';
import { isHosted } from '../config/shared-processes.js';
import { callTaggingFetch } from './call-tagging-fetch.js';
import { HostedServerTransport } from './hosted-server-transport.js';
import { ProcessGroupTransport } from './process-group-transport.js';
import { serverHostFor } from './server-host.js';
import { stdioLaunch } from './stdio-launch.js';

/**
 * One way to reach a server. `probe`: the transport can carry either era, so the connection asks
 * `server/discover` first and falls back to the 2025 handshake; the legacy HTTP+SSE transport
 * carries only 2025 sessions.
 */
export interface Dial {
  open: () => Transport;
  probe: boolean;
}

/** Every way to try, in order: a remote `http` server may still speak only legacy SSE. */
export function transportsFor(
  config: ServerConfig,
  onStderr: (line: string) => void,
  onSandboxWarning: (warning: string | undefined) => void = () => undefined,
): Dial[] {
  if (isHosted(config)) {
    const open = () => {
      const { program, args } = config.sharedProcess;
      const transport = new HostedServerTransport(serverHostFor(config), program, args, onSandboxWarning);
      forwardLines(transport.stderr, onStderr);
      return transport;
    };
    return [{ open, probe: true }];
  }
  if (isStdioServer(config)) {
    const open = () => {
      // Throws when a required sandbox cannot be had: the start fails with that reason.
      const { sandboxWarning, ...launch } = stdioLaunch(config);
      onSandboxWarning(sandboxWarning);
      // Windows has no process groups to end: there the SDK's transport, which ends the server alone.
      const transport =
        process.platform === 'win32'
          ? new StdioClientTransport({ ...launch, stderr: 'pipe' })
          : new ProcessGroupTransport(launch);
      if (transport.stderr) forwardLines(transport.stderr, onStderr);
      return transport;
    };
    return [{ open, probe: true }];
  }
  const remote = config as RemoteServerConfig;
  const url = new URL(remote.url);
  const requestInit = { headers: remote.headers };
  const fetch = callTaggingFetch(fetchWithOwnSignal());
  const streamable: Dial = {
    open: () => new StreamableHTTPClientTransport(url, { requestInit, fetch }),
    probe: true,
  };
  const sse: Dial = {
    open: () =>
      new SSEClientTransport(url, {
        requestInit,
        fetch,
        eventSourceInit: { fetch: withHeaders(remote.headers, fetch) },
      }),
    probe: false,
  };
  if (remote.type === 'sse') return [sse];
  if (remote.type === 'streamable-http') return [streamable];
  return [streamable, sse];
}

/** Each non-blank line of a server's stderr, as it completes. */
function forwardLines(stderr: Stream, onLine: (line: string) => void): void {
  let pending = '';
  stderr.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) onLine(line);
  });
}

function withHeaders(headers: Record<string, string>, base: typeof fetch) {
  return (input: string | URL | Request, init?: RequestInit) =>
    base(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } });
}
