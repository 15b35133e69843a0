// The bins' start-up without Sparkplug and TurboFan (src/startup-tiering.ts): held off once
// small-heap is loaded, and back for good at the first tool call, so hot tool code is optimized
// as before. A process of its own with the built kit, as a bin runs it; V8 compiles on the main
// thread there (`--no-concurrent-recompilation`), so whether a function got optimized is known
// when the loop that made it hot ends.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = (file: string) => JSON.stringify(fileURLToPath(new URL(`../dist/${file}`, import.meta.url)));

/** Runs `body` in a fresh Node with the natives syntax that tells whether `hot` is optimized. */
function inNode(body: string, flags: string[] = []): string {
  return execFileSync(
    process.execPath,
    ['--allow-natives-syntax', '--no-concurrent-recompilation', ...flags, '--input-type=module', '-e', body],
    { encoding: 'utf8' },
  ).trim();
}

// Bit 16 of %GetOptimizationStatus: the function runs optimized code.
const HOT = `
  const hot = (n) => { let sum = 0; for (let i = 0; i < n; i++) sum += i % 7; return sum; };
  const optimized = () => {
    for (let round = 0; round < 20000; round++) {
      hot(1000);
      if (%GetOptimizationStatus(hot) & 16) return 'optimized';
    }
    return 'not optimized';
  };`;

describe('start-up tiering', () => {
  it('optimizes nothing after small-heap until the first tool call, then hot code again', () => {
    const seen = inNode(`
      await import(${dist('small-heap.js')});
      const { runTool, toolDefiner, createLogger } = await import(${dist('index.js')});
      const { z } = await import('zod');
      ${HOT}
      const before = optimized();
      const echo = toolDefiner()({
        name: 'echo', description: 'Says the text back.', capability: 'read',
        input: z.object({ text: z.string() }), output: z.object({ text: z.string() }),
        annotations: { readOnlyHint: true }, actions: ['read'], handle: async ({ text }) => ({ text }),
      });
      const result = await runTool(echo, { text: 'hi' }, {
        signal: new AbortController().signal, log: createLogger('test', 'error'),
      });
      console.log(JSON.stringify([before, result.structuredContent.text, optimized()]));`);
    expect(JSON.parse(seen)).toEqual(['not optimized', 'hi', 'optimized']);
  });

  it("keeps an embedder's own V8 flags where small-heap was not loaded", () => {
    const seen = inNode(
      `
      const { optimizeFromNowOn } = await import(${dist('index.js')});
      ${HOT}
      optimizeFromNowOn();
      console.log(optimized());`,
      ['--no-turbofan'],
    );
    expect(seen).toBe('not optimized');
  });
});
