// The protocol eras section of docs/benchmarks.md, printed without rewriting the page
// (`node test/bench/protocol-eras.mjs` after `pnpm build`); see eras-bench.mjs.
import { benchmarkEras, renderErasSection } from './eras-bench.mjs';

const figures = await benchmarkEras({ log: (line) => process.stderr.write(`${line}\n`) });
process.stdout.write(renderErasSection(figures));
