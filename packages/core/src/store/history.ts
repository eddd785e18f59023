import { open, readFile } from 'node:fs/promises';
import { terminalJson } from '../text/index.js';

/** One line of `history.jsonl`. `type` names the event; other fields depend on it. */
export interface HistoryEvent {
  readonly type: string;
  readonly timestamp: string;
  readonly [field: string]: unknown;
}

/** Appends one event. Callers hold the task lock, so lines never interleave. */
export async function appendHistory(file: string, event: Omit<HistoryEvent, 'timestamp'> & { timestamp?: string }): Promise<HistoryEvent> {
  const full = { ...event, timestamp: event.timestamp ?? new Date().toISOString() } as HistoryEvent;
  const handle = await open(file, 'a+');
  try {
    // After a writer was killed mid-append, the torn line must stay alone on its line: an event
    // appended onto it would be skipped with it, and the ledger would lose a status change.
    const { size } = await handle.stat();
    const last = Buffer.alloc(1);
    const torn = size > 0 && (await handle.read(last, 0, 1, size - 1)).bytesRead === 1 && last[0] !== 0x0a;
    // terminalJson: the same JSON, with control and bidi characters escaped, so `cat` of it is inert.
    await handle.appendFile(`${torn ? '\n' : ''}${terminalJson(full)}\n`, 'utf8');
  } finally {
    await handle.close();
  }
  return full;
}

/** Reads every event; a torn last line (writer killed mid-append) is skipped, not fatal. */
export async function readHistory(file: string): Promise<HistoryEvent[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const events: HistoryEvent[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line) as HistoryEvent);
    } catch {
      // A partial line can only be the last write of a killed process; the ledger ignores it.
    }
  }
  return events;
}

/**
 * The status of record: the `to` of the last `status.changed`, or the status the task was
 * created in. TASK.md's own status is obeyed only when it agrees (SPEC §9).
 */
export function ledgerStatus(events: readonly HistoryEvent[]): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as HistoryEvent;
    if (event.type === 'status.changed' && typeof event.to === 'string') return event.to;
    if (event.type === 'task.created' && typeof event.status === 'string') return event.status;
  }
  return null;
}
