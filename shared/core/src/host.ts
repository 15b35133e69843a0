#!/usr/bin/env node
// The server host, run as `node dist/host.js`: first-party servers that share a process run in it (see server-host.ts).
// The heap setting before anything else is loaded, as in every server bin.
import './small-heap.js';

const { runServerHost } = await import('./server-host.js');
await runServerHost();
