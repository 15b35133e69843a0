#!/usr/bin/env node
// The heap setting before anything else is loaded: loading the SDK and zod is what would grow it.
import '@toolmesh/core/small-heap';

const { runServerProgram } = await import('@toolmesh/core');
const { program } = await import('./program.js');

await runServerProgram(program);
