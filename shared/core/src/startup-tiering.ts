// V8's compilers past its interpreter (Sparkplug, TurboFan) held off while a server starts.
// Start-up runs most of its code once (zod and the SDK building their schemas, tools listed), yet
// it is hot enough for V8 to compile again, TurboFan on background threads; the compilers' code
// pages, the code and those threads' allocations then stay resident for the life of an idle
// process: about 10 MiB of a server's 67 (docs/benchmarks.md, memory at rest). Real work turns
// them back on (both are on by default in Node's V8), so hot tool code is compiled as before.
import { setFlagsFromString } from 'node:v8';

let deferred = false;

/** Holds Sparkplug and TurboFan off until `optimizeFromNowOn`; for bins and the server host, before loading much. */
export function deferOptimizing(): void {
  setFlagsFromString('--no-sparkplug');
  setFlagsFromString('--no-turbofan');
  deferred = true;
}

/**
 * Lets V8 optimize hot code again, from the first tool call or background work on (cheap once
 * done). Does nothing where `deferOptimizing` was not called: an embedder's own flags stay as set.
 */
export function optimizeFromNowOn(): void {
  if (!deferred) return;
  deferred = false;
  setFlagsFromString('--sparkplug');
  setFlagsFromString('--turbofan');
}
