import type { HistoryLine } from '../../src/protocol';
import { valueText } from './shown-text';

/** One history event as the timeline shows it. */
export interface HistoryEntry {
  readonly type: string;
  readonly timestamp: string;
  /** The event in one line: `working → agent-review`, `spawn_agent: no such harness`, or empty. */
  readonly headline: string;
  /** Its other fields, as text. */
  readonly fields: ReadonlyArray<readonly [string, string]>;
}

/** Fields the headline already says (or the timeline shows elsewhere). */
const SHOWN = new Set(['type', 'timestamp']);

/**
 * One ledger event, as the dashboard's `historyText` reads it: a status change as `from → to`; a
 * failed hook as its hook and error (never as a transition: its from/to are the move it failed in);
 * anything else by its type. Every other field is listed after it.
 */
export function historyEntry(event: HistoryLine): HistoryEntry {
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  let headline = '';
  const used = new Set(SHOWN);
  if (event.type === 'status.changed' && text(event.from) && text(event.to)) {
    headline = `${String(event.from)} → ${String(event.to)}`;
    used.add('from').add('to');
  } else if (event.type === 'hook.failed') {
    headline = `${text(event.hook) ?? '?'}${text(event.error) ? `: ${String(event.error)}` : ''}`;
    used.add('hook').add('error');
  }
  const fields = Object.entries(event)
    .filter(([key, value]) => !used.has(key) && value !== undefined && value !== null && value !== '')
    .map(([key, value]) => [valueText(key), valueText(value)] as const);
  return { type: valueText(event.type), timestamp: typeof event.timestamp === 'string' ? event.timestamp : '', headline: valueText(headline), fields };
}

/** `14:02:05` today, `Mar 3 14:02` another day (the reader's local time). */
export function eventTime(iso: string, now: number): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const sameDay = new Date(now).toDateString() === at.toDateString();
  const time = at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: sameDay ? '2-digit' : undefined, hour12: false });
  return sameDay ? time : `${at.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`;
}
