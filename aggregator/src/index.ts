#!/usr/bin/env node
// The toolmesh bin: runs the program's bundle compiled from V8's code cache when there is one.
// Each command has a cache of its own, as each loads different code.
import { fileURLToPath } from 'node:url';
import { runBundleWithCodeCache } from '@toolmesh/core/code-cache';

const command = process.argv[2] ?? '';
runBundleWithCodeCache(
  fileURLToPath(new URL('./cli.cjs', import.meta.url)),
  `toolmesh-${/^[a-z]{1,12}$/.test(command) ? command : 'other'}`,
);
