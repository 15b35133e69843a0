import { ToolError } from '@toolmesh/core';

/** Milliseconds since the epoch, UTC. Injected so tests move time instead of sleeping. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * An instant a caller gave (`2026-03-01`, `2026-03-01T12:00:00Z`, with an offset), as canonical
 * UTC ISO text. A date alone is midnight UTC; a time without a zone is refused, since it would
 * silently mean the server's zone.
 */
export function parseInstant(value: string, field: string): string {
  const text = value.trim();
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const zoned = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(text);
  const ms = dateOnly ? Date.parse(`${text}T00:00:00Z`) : zoned ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(ms) || !isCalendarDay(text.slice(0, 10))) {
    throw new ToolError(
      `${field} must be a UTC date (2026-03-01) or an ISO time with a zone (2026-03-01T09:30:00Z), not ${JSON.stringify(value)}.`,
      'bad_time',
    );
  }
  return isoAt(ms);
}

/** Whether YYYY-MM-DD names a day that exists: Date.parse rolls 2026-02-30 over into March. */
function isCalendarDay(day: string): boolean {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const check = new Date(0);
  check.setUTCFullYear(year, month - 1, date);
  return check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === date;
}
