// Imported first by every server bin and the server host, for its side effect: V8 may not grow
// the young generation. V8 doubles it (up to 16 MiB a half) under the allocation burst of
// loading the SDK and zod, and keeps it so for the life of the process; an idle server then
// holds about 6 MiB of empty nursery. Measured in docs/benchmarks.md (memory at rest): each
// server alone about 6 MiB smaller. `setFlagsFromString` is the only way a bin run as
// `node <bin>` sets it: `--max-semi-space-size` is read when the heap is made, before any code.
// Start-up also runs without the optimizing compiler (see startup-tiering.ts), and the heap it
// leaves is given back once requests pause (see heap-release.ts).
import { setFlagsFromString } from 'node:v8';
import { releaseStartUpHeapWhenQuiet } from './heap-release.js';
import { deferOptimizing } from './startup-tiering.js';

setFlagsFromString('--semi-space-growth-factor=1');
deferOptimizing();
releaseStartUpHeapWhenQuiet();
