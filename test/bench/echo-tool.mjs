// The bench echo servers' one tool: a timed call through it is nothing but transport and proxy.
export const ECHO = {
  name: 'echo',
  description: 'Returns its text unchanged.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  annotations: { readOnlyHint: true },
};

/** The tool's answer to a tools/call request: its text, unchanged. */
export const answerEcho = (request) => ({
  content: [{ type: 'text', text: String(request.params.arguments?.text ?? '') }],
});
