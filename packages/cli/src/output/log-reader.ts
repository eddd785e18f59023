import { readFile } from 'node:fs/promises';
import { inlineText, LOG_LEVELS, type LogLevel, type LogRecord } from '@orange/core';

export interface LogFilter {
  readonly level?: LogLevel;
  readonly component?: string;
  readonly grep?: string;
  readonly lines: number;
}

/**
 * The last `lines` records of the log (and of its rotated predecessor when the current file
 * has too few) that pass the filter; null when there is no log at all.
 */
export async function readLog(file: string, filter: LogFilter): Promise<{ records: LogRecord[] | null; malformed: number }> {
  const texts = await Promise.all([readFile(`${file}.1`, 'utf8').catch(() => null), readFile(file, 'utf8').catch(() => null)]);
  if (texts.every((t) => t === null)) return { records: null, malformed: 0 };
  const minimum = filter.level ? LOG_LEVELS.indexOf(filter.level) : 0;
  const needle = filter.grep?.toLowerCase();
  let malformed = 0;
  const records: LogRecord[] = [];
  for (const line of texts.filter((t): t is string => t !== null).join('').split('\n')) {
    if (line.trim() === '') continue;
    if (needle && !line.toLowerCase().includes(needle)) continue;
    let record: LogRecord;
    try {
      record = JSON.parse(line) as LogRecord;
    } catch {
      malformed++;
      continue;
    }
    if (LOG_LEVELS.indexOf(record.level) < minimum) continue;
    if (filter.component && record.component !== filter.component) continue;
    records.push(record);
  }
  return { records: records.slice(-filter.lines), malformed };
}

/** `2026-11-23T10:00:00.000Z  info   monitor  agent exited  task=… role=worker`, as one safe line (fields quote agents and plugins). */
export function formatRecord(record: LogRecord): string {
  const { time, level, component, msg, ...fields } = record;
  const rest = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return inlineText(`${time}  ${String(level).padEnd(5)}  ${component}  ${msg}${rest ? `  ${rest}` : ''}`);
}
