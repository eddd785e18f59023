import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { terminalJson } from '../text/index.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Bytes after which `orange.log` is rotated to `orange.log.1` (one generation kept). */
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;

/** One JSON object per line: `{time, level, component, msg, ...fields}`. */
export interface LogRecord {
  readonly time: string;
  readonly level: LogLevel;
  readonly component: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** The one logger: JSON lines to `$ORANGE_HOME/orange.log`, rotated at 10 MB. */
export class Logger {
  constructor(
    private readonly file: string,
    private readonly level: LogLevel = 'info',
    readonly component = 'core',
  ) {}

  /** A logger for a plugin or subsystem, sharing the file and level. */
  child(component: string): Logger {
    return new Logger(this.file, this.level, component);
  }

  debug(msg: string, fields?: Record<string, unknown>): void {
    this.write('debug', msg, fields);
  }

  info(msg: string, fields?: Record<string, unknown>): void {
    this.write('info', msg, fields);
  }

  warn(msg: string, fields?: Record<string, unknown>): void {
    this.write('warn', msg, fields);
  }

  error(msg: string, fields?: Record<string, unknown>): void {
    this.write('error', msg, fields);
  }

  private write(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(this.level)) return;
    const record: LogRecord = { time: new Date().toISOString(), level, component: this.component, msg, ...fields };
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      rotateIfLarge(this.file);
      // Synchronous on purpose: a CLI call may exit right after logging, and order must hold.
      // terminalJson: `tail -f orange.log` must not obey an escape an agent put in a field.
      appendFileSync(this.file, `${terminalJson(record)}\n`);
    } catch {
      // Logging must never turn a working command into a failing one.
    }
  }
}

function rotateIfLarge(file: string): void {
  try {
    if (statSync(file).size >= LOG_ROTATE_BYTES) renameSync(file, `${file}.1`);
  } catch {
    // No file yet.
  }
}
