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

export function createLogger(options: { level?: LogLevel; scope?: string; sink?: LogSink } = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  const sink = options.sink ?? stderrSink;
  const scope = options.scope;
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const prefix = scope ? `[${scope}] ` : '';
    const suffix = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    sink(`${new Date().toISOString()} ${level.padEnd(7)} ${prefix}${message}${suffix}`);
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
