// The bin's program, built as one CommonJS bundle (dist/cli.cjs) that dist/index.js runs with
// V8's code cache.
import { run } from './main.js';

void run(process.argv.slice(2));
