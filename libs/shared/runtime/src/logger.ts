import pino, { Logger } from 'pino';

/**
 * Structured JSON logs. Secrets never reach a log line: API keys, authorization headers, PAN and CVV
 * fields are redacted wherever they appear.
 */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.apiKey',
  '*.secret',
  '*.pan',
  '*.cvv',
];

export function createLogger(level = process.env.LOG_LEVEL ?? 'info', name = 'cip'): Logger {
  return pino({
    name,
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  });
}

export type { Logger };
