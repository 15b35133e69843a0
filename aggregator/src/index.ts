#!/usr/bin/env node
import { run } from './cli/main.js';

await run(process.argv.slice(2));
