/** Levels in the order of the MCP logging levels that toolmesh uses. */
export const LOG_LEVELS = ['debug', 'info', 'warning', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warning(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

export type LogSink = (line: string) => void;

// stdout of a stdio server carries protocol messages only, so every log line goes to stderr.
const stderrSink: LogSink = (line) => {
  process.stderr.write(`${line}\n`);
};

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/**
 * The present as `Date.prototype.toISOString` writes it (years 0 to 9999), from the UTC fields.
 * V8's toISOString looks up the local time zone's display name first, though the ISO form never
 * shows it: that loads ICU's time zone names, about 0.9 MiB a process then holds for good.
 */
export function isoTimestamp(date = new Date()): string {
  const day = `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  return `${day}T${time}.${pad(date.getUTCMilliseconds(), 3)}Z`;
}

export function createLogger(options: { level?: LogLevel; scope?: string; sink?: LogSink } = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  const sink = options.sink ?? stderrSink;
  const scope = options.scope;
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const prefix = scope ? `[${scope}] ` : '';
    const suffix = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    sink(`${isoTimestamp()} ${level.padEnd(7)} ${prefix}${message}${suffix}`);
  };
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warning: (message, fields) => write('warning', message, fields),
    error: (message, fields) => write('error', message, fields),
    child: (child) =>
      createLogger({ level: options.level, sink, scope: scope ? `${scope}:${child}` : child }),
  };
}
