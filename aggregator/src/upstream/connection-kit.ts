// What connecting to a downstream server takes: the v2 client SDK and the transports. Loaded
// when the first server starts (see `connectionKit`), not with the aggregator: `toolmesh serve`
// answers `initialize` sooner, and a one-shot command that lists every server from the
// catalogue cache never loads it.
export { Client, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
export { type Dial, transportsFor } from './transport.js';
export { newUpstreamClient } from './upstream-client.js';
