import type { HistoryEvent, TaskMeta } from '@orange/core';

/** A plain text table: columns padded to their widest cell, two spaces apart. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** "3m ago", "2h ago", "5d ago". */
export function ago(iso: string, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (Number.isNaN(seconds)) return '?';
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/** Cuts `text` to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Which agents a task has running, as recorded (`worker`, `reviewer`, both or `-`). */
export function agents(meta: TaskMeta): string {
  const running = [meta.worker_spawn ? 'worker' : null, meta.reviewer_spawn ? 'reviewer' : null].filter(Boolean);
  return running.length ? running.join('+') : '-';
}

/** One history event as a line: time, type, and its facts. */
export function historyLine(event: HistoryEvent): string {
  const { timestamp, type, ...facts } = event;
  const arrow = typeof facts.from === 'string' && typeof facts.to === 'string' ? `${facts.from} → ${facts.to}` : '';
  const rest = Object.entries(facts)
    .filter(([k]) => !(arrow && (k === 'from' || k === 'to')))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return [timestamp, type, arrow, rest].filter((s) => s !== '').join('  ');
}
