import { createMcpHandler, type Server } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import type { Logger } from './logger.js';
import { answerModernToolCall, answersPastTheSdk, plainModernToolCall } from './modern-tool-calls.js';
import { requestParamsProblem } from './request-params.js';
import { sendWebResponse, webRequestOf } from './web-exchange.js';

const INVALID_PARAMS = -32602;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The 2026-07-28 leg of an endpoint: one server per request, made by `serverOf` from the request
 * it answers (undefined when it refused the request, and answered it so); the SDK refuses 2025
 * traffic there, which the session leg takes before it. A plain tools/call of a server that
 * serves its calls past the SDK (see serveToolCalls) is answered so.
 */
export function modernLeg(
  serverOf: (req: Request, res: Response) => Server | undefined,
  { maxBodyBytes, log }: { maxBodyBytes: number; log: Logger },
) {
  // Made before the SDK asks, so a refusal (a mode that does not exist) is answered as such.
  const serverFor = new WeakMap<globalThis.Request, Server>();
  const handler = createMcpHandler(
    ({ requestInfo }) => {
      const server = requestInfo && serverFor.get(requestInfo);
      if (!server) throw new Error('no server was made for this request');
      return server;
    },
    {
      legacy: 'reject',
      maxRequestBodySize: maxBodyBytes,
      onerror: (error) => log.debug(`2026-07-28 request: ${error.message}`),
    },
  );
  const viaSdk = (req: Request, res: Response, server: Server) => {
    const request = webRequestOf(req, res);
    serverFor.set(request, server);
    return { request, answer: () => handler.fetch(request, { parsedBody: req.body }) };
  };
  return {
    close: () => handler.close(),
    async serve(req: Request, res: Response): Promise<void> {
      const call = plainModernToolCall(req);
      // Refused here, as over stdio, with the fields named, rather than by the SDK's schema dump.
      const problem =
        !call && isRecord(req.body) && 'id' in req.body ? requestParamsProblem(req.body) : undefined;
      if (problem !== undefined) {
        res.json({ jsonrpc: '2.0', id: req.body.id, error: { code: INVALID_PARAMS, message: problem } });
        return;
      }
      const server = serverOf(req, res);
      if (!server) return;
      if (call && answersPastTheSdk(server))
        return answerModernToolCall(res, server, call, (remember) => {
          const { request, answer } = viaSdk(req, res, server);
          remember(request);
          return answer();
        });
      await sendWebResponse(res, await viaSdk(req, res, server).answer());
    },
  };
}
