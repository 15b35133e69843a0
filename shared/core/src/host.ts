#!/usr/bin/env node
// The server host, run as `node dist/host.js`: first-party servers that share a process run in it (see server-host.ts).
import { runServerHost } from './server-host.js';

await runServerHost();
