#!/usr/bin/env node
import { runServerProgram } from '@toolmesh/core';
import { program } from './program.js';

await runServerProgram(program);
