#!/usr/bin/env node
// The heap setting before anything else is loaded: loading the SDK and zod is what would grow it.
import '@toolmesh/core/small-heap';

const { runServerProgram } = await import('@toolmesh/core');
const { isCliCommand, runCli } = await import('./cli.js');
const { program } = await import('./program.js');

const argv = process.argv.slice(2);
if (isCliCommand(argv[0])) process.exitCode = await runCli(argv);
else await runServerProgram(program, argv);
