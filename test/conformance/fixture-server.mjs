#!/usr/bin/env node
// The MCP server the official conformance suite's server scenarios are written against: its
// tools, resources, resource template, prompts and completions, under the exact names the
// scenarios call. It is a plain SDK server, no toolmesh code, so that it can be measured both
// directly and through the aggregator. Serves Streamable HTTP on 127.0.0.1 (stateful sessions,
// resumable streams) at a free port, or at `--port N`, and logs `listening on <url>` on stderr.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  isInitializeRequest,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** A 1×1 red pixel. */
const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A valid WAV file of `samples` silent 8-bit mono samples at 8 kHz. */
function silentWav(samples) {
  const wav = Buffer.alloc(44 + samples, 0x80);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + samples, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24); // sample rate
  wav.writeUInt32LE(8000, 28); // byte rate
  wav.writeUInt16LE(1, 32); // block align
  wav.writeUInt16LE(8, 34); // bits per sample
  wav.write('data', 36);
  wav.writeUInt32LE(samples, 40);
  return wav.toString('base64');
}

const SILENT_WAV = silentWav(800);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value) => ({ type: 'text', text: value });
const NO_ARGUMENTS = { type: 'object', properties: {} };

const ELICITATION_DEFAULTS_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: {
      type: 'string',
      description: 'User status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
};

const ELICITATION_ENUMS_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
};

/** Each tool: its listing, and a handler `(args, context) → CallToolResult`. */
const TOOLS = {
  test_simple_text: {
    description: 'Returns a fixed sentence.',
    run: () => ({ content: [text('This is a simple text response for testing.')] }),
  },
  test_image_content: {
    description: 'Returns a 1×1 red PNG.',
    run: () => ({ content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }] }),
  },
  test_audio_content: {
    description: 'Returns a tenth of a second of silence as WAV.',
    run: () => ({ content: [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }] }),
  },
  test_embedded_resource: {
    description: 'Returns an embedded text resource.',
    run: () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  },
  test_multiple_content_types: {
    description: 'Returns text, an image and an embedded resource in one result.',
    run: () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  },
  test_tool_with_logging: {
    description: 'Sends three info log messages, 50 ms apart, while it runs.',
    run: async (_args, { log }) => {
      await log('info', 'Tool execution started');
      await sleep(50);
      await log('info', 'Tool processing data');
      await sleep(50);
      await log('info', 'Tool execution completed');
      return { content: [text('Logging test completed: sent 3 info messages.')] };
    },
  },
  test_error_handling: {
    description: 'Always fails, as a tool result with isError.',
    run: () => ({
      isError: true,
      content: [text('This tool intentionally returns an error for testing')],
    }),
  },
  test_tool_with_progress: {
    description: 'Reports progress 0, 50 and 100 of 100, 50 ms apart, when asked for progress.',
    run: async (_args, { progress }) => {
      await progress(0);
      await sleep(50);
      await progress(50);
      await sleep(50);
      await progress(100);
      return { content: [text('Progress test completed.')] };
    },
  },
  test_sampling: {
    description: "Asks the client's model to answer a prompt (sampling/createMessage).",
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the model' } },
      required: ['prompt'],
    },
    run: async ({ prompt }, { server }) => {
      if (!server.getClientCapabilities()?.sampling)
        return { isError: true, content: [text('The client does not support sampling.')] };
      const answer = await server.createMessage({
        messages: [{ role: 'user', content: text(String(prompt)) }],
        maxTokens: 100,
      });
      const reply = answer.content.type === 'text' ? answer.content.text : JSON.stringify(answer.content);
      return { content: [text(`LLM response: ${reply}`)] };
    },
  },
  test_elicitation: {
    description: 'Asks the user for a username and an email address (elicitation/create).',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
    },
    run: ({ message }, context) =>
      elicit(context, String(message), {
        type: 'object',
        properties: {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        required: ['username', 'email'],
      }),
  },
  test_elicitation_sep1034_defaults: {
    description: 'Elicits a form whose every primitive field has a default (SEP-1034).',
    run: (_args, context) =>
      elicit(context, 'Please review and update the form fields with defaults', ELICITATION_DEFAULTS_SCHEMA),
  },
  test_elicitation_sep1330_enums: {
    description: 'Elicits a form with each of the five enum variants (SEP-1330).',
    run: (_args, context) =>
      elicit(context, 'Please select options from the enum fields', ELICITATION_ENUMS_SCHEMA),
  },
  json_schema_2020_12_tool: {
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
    run: (args) => ({ content: [text(`Received: ${JSON.stringify(args)}`)] }),
  },
  test_reconnection: {
    description: 'Closes its SSE stream mid-call, so the client must reconnect to get the result (SEP-1699).',
    run: async (_args, { closeStream }) => {
      // The transport offers this only to clients that can resume (protocol 2025-11-25 and later).
      closeStream?.();
      await sleep(100);
      return { content: [text('Reconnection test completed successfully')] };
    },
  },
};

async function elicit({ server }, message, requestedSchema) {
  if (!server.getClientCapabilities()?.elicitation)
    return { isError: true, content: [text('The client does not support elicitation.')] };
  const answer = await server.elicitInput({ message, requestedSchema });
  return {
    content: [
      text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`),
    ],
  };
}

const RESOURCES = {
  'test://static-text': {
    name: 'static-text',
    description: 'A fixed text resource.',
    mimeType: 'text/plain',
    text: 'This is the content of the static text resource.',
  },
  'test://static-binary': {
    name: 'static-binary',
    description: 'A fixed binary resource: a 1×1 red PNG.',
    mimeType: 'image/png',
    blob: RED_PIXEL_PNG,
  },
  'test://watched-resource': {
    name: 'watched-resource',
    description: 'A resource clients can subscribe to: subscribers are told it changed every 500 ms.',
    mimeType: 'text/plain',
    text: 'Watched resource content.',
  },
};

const TEMPLATE_URI = /^test:\/\/template\/([^/]+)\/data$/;

function readResource(uri) {
  const fixed = RESOURCES[uri];
  if (fixed) {
    const { mimeType, text: body, blob } = fixed;
    return { contents: [{ uri, mimeType, ...(body !== undefined ? { text: body } : { blob }) }] };
  }
  const id = TEMPLATE_URI.exec(uri)?.[1];
  if (id === undefined) throw new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found.`);
  const data = { id, templateTest: true, data: `Data for ID: ${id}` };
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data) }] };
}

/** Each prompt: its listing and `(args) → messages`. */
const PROMPTS = {
  test_simple_prompt: {
    description: 'A prompt with no arguments.',
    messages: () => [{ role: 'user', content: text('This is a simple prompt for testing.') }],
  },
  test_prompt_with_arguments: {
    description: 'A prompt with two required arguments.',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    messages: ({ arg1, arg2 }) => [
      { role: 'user', content: text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`) },
    ],
  },
  test_prompt_with_embedded_resource: {
    description: 'A prompt that embeds the resource it is given.',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    messages: ({ resourceUri }) => [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: {
            uri: resourceUri,
            mimeType: 'text/plain',
            text: 'Embedded resource content for testing.',
          },
        },
      },
      { role: 'user', content: text('Please process the embedded resource above.') },
    ],
  },
  test_prompt_with_image: {
    description: 'A prompt with an image.',
    messages: () => [
      { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
      { role: 'user', content: text('Please analyze the image above.') },
    ],
  },
};

/** Completion candidates per argument, for prompt arguments and the template's `id`. */
const COMPLETIONS = {
  arg1: ['paris', 'park', 'party', 'test', 'testing'],
  arg2: ['hello', 'help', 'world'],
  id: ['1', '123', '42'],
};

function requiredArguments(name, schema, args) {
  const missing = (schema.required ?? []).filter((key) => args[key] === undefined);
  if (missing.length > 0)
    throw new McpError(ErrorCode.InvalidParams, `${name} needs the argument(s) ${missing.join(', ')}.`);
}

/** One MCP server per session: each has its own client capabilities, log level and subscriptions. */
function createFixtureServer() {
  const server = new Server(
    { name: 'toolmesh-conformance-fixture', version: '1.0.0' },
    {
      capabilities: {
        tools: {},
        resources: { subscribe: true },
        prompts: {},
        logging: {},
        completions: {},
      },
    },
  );
  const severity = (level) => LoggingLevelSchema.options.indexOf(level);
  let minimumLevel = 'debug';
  const subscriptions = new Set();
  let announcer;
  const announceWhileSubscribed = () => {
    if (subscriptions.size === 0) {
      clearInterval(announcer);
      announcer = undefined;
    } else {
      announcer ??= setInterval(() => {
        for (const uri of subscriptions) void server.sendResourceUpdated({ uri }).catch(() => undefined);
      }, 500);
    }
  };
  server.onclose = () => clearInterval(announcer);

  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    minimumLevel = request.params.level;
    return {};
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: Object.entries(TOOLS).map(([name, tool]) => ({
      name,
      description: tool.description,
      inputSchema: tool.inputSchema ?? NO_ARGUMENTS,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const tool = TOOLS[name];
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${name}.`);
    requiredArguments(name, tool.inputSchema ?? NO_ARGUMENTS, args);
    const progressToken = extra._meta?.progressToken;
    return tool.run(args, {
      server,
      // Sent as part of this call, so they travel on its own response stream.
      log: async (level, data) => {
        if (severity(level) < severity(minimumLevel)) return;
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level, logger: name, data },
        });
      },
      progress: async (progress) => {
        if (progressToken === undefined) return;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress, total: 100 },
        });
      },
      closeStream: extra.closeSSEStream,
    });
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: Object.entries(RESOURCES).map(([uri, { name, description, mimeType }]) => ({
      uri,
      name,
      description,
      mimeType,
    })),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: 'test://template/{id}/data',
        name: 'template-data',
        description: 'JSON data for the given id.',
        mimeType: 'application/json',
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(request.params.uri));
  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    subscriptions.add(request.params.uri);
    announceWhileSubscribed();
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.delete(request.params.uri);
    announceWhileSubscribed();
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: Object.entries(PROMPTS).map(([name, prompt]) => ({
      name,
      description: prompt.description,
      ...(prompt.arguments && { arguments: prompt.arguments }),
    })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    const { name, arguments: args = {} } = request.params;
    const prompt = PROMPTS[name];
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt ${name}.`);
    const required = (prompt.arguments ?? []).filter((arg) => arg.required).map((arg) => arg.name);
    requiredArguments(name, { required }, args);
    return { description: prompt.description, messages: prompt.messages(args) };
  });

  server.setRequestHandler(CompleteRequestSchema, (request) => {
    const { name, value } = request.params.argument;
    const values = (COMPLETIONS[name] ?? []).filter((candidate) => candidate.startsWith(value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Refuses a Host or Origin that is not loopback, so a web page cannot reach it by DNS rebinding. */
function isLocalRequest(req) {
  const hostname = (value) => {
    try {
      return new URL(value.includes('://') ? value : `http://${value}`).hostname.toLowerCase();
    } catch {
      return '';
    }
  };
  const { host, origin } = req.headers;
  return (
    LOCAL_HOSTNAMES.has(hostname(host ?? '')) &&
    (origin === undefined || LOCAL_HOSTNAMES.has(hostname(origin)))
  );
}

function sendError(res, status, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const sessions = new Map();

async function handle(req, res) {
  if (!isLocalRequest(req)) return sendError(res, 403, 'Only loopback Host and Origin headers are accepted.');
  if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp')
    return sendError(res, 404, 'Not found: use /mcp.');
  const body = req.method === 'POST' ? await readJson(req) : undefined;
  const sessionId = req.headers['mcp-session-id'];
  const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
  if (existing) return existing.handleRequest(req, res, body);
  if (typeof sessionId === 'string') return sendError(res, 404, 'Session not found: initialize again.');
  const messages = Array.isArray(body) ? body : [body];
  if (req.method !== 'POST' || !messages.some((message) => isInitializeRequest(message)))
    return sendError(res, 400, 'No Mcp-Session-Id header: send an initialize request first.');
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    eventStore: new InMemoryEventStore(),
    retryInterval: 500,
    onsessioninitialized: (id) => sessions.set(id, transport),
  });
  const server = createFixtureServer();
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

const portFlag = process.argv.indexOf('--port');
const port = portFlag === -1 ? 0 : Number(process.argv[portFlag + 1]);
const httpServer = createServer((req, res) => {
  handle(req, res).catch((error) => {
    if (!res.headersSent) sendError(res, error instanceof SyntaxError ? 400 : 500, error.message);
    else res.end();
  });
});
httpServer.listen(port, '127.0.0.1', () => {
  process.stderr.write(`listening on http://127.0.0.1:${httpServer.address().port}/mcp\n`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    httpServer.closeAllConnections();
    httpServer.close(() => process.exit(0));
  });
}
