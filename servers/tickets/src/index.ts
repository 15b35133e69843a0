#!/usr/bin/env node
import { runServerProgram } from '@toolmesh/core';
import { isCliCommand, runCli } from './cli.js';
import { program } from './program.js';

const argv = process.argv.slice(2);
if (isCliCommand(argv[0])) process.exitCode = await runCli(argv);
else await runServerProgram(program, argv);
