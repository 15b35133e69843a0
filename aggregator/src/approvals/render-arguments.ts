import { redactArguments } from '../audit/redaction.js';

const SHOWN_CHARACTERS = 160;

function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  if (text.length <= SHOWN_CHARACTERS) return text;
  return `${text.slice(0, SHOWN_CHARACTERS)}… (${text.length.toLocaleString('en-US')} characters)`;
}

/** One line per argument, long values cut, so a person can judge a call at a glance. */
export function renderArguments(args: Record<string, unknown>): string {
  const entries = Object.entries(redactArguments(args));
  if (entries.length === 0) return '  (no arguments)';
  return entries.map(([key, value]) => `  ${key}: ${shown(value)}`).join('\n');
}
