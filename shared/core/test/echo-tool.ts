import { z } from 'zod';
import { toolDefiner } from '../src/define-tool.js';

/** The smallest real tool, for tests of the layers around tools: it says its text back. */
export const echoTool = toolDefiner<unknown>()({
  name: 'echo',
  title: 'Echo',
  description: 'Says the text back.',
  capability: 'read',
  input: z.object({ text: z.string() }),
  output: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  actions: ['read'],
  handle: async ({ text }) => ({ text }),
});
