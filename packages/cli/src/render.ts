import { inlineText, type HistoryEvent, type TaskMeta } from '@orange/core';

/**
 * A plain text table: columns padded to their widest cell, two spaces apart. Every cell is shown
 * with `inlineText` (and measured after it), so no cell can split its row or move the cursor.
 */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const safe = rows.map((r) => r.map(inlineText));
  const widths = headers.map((h, i) => Math.max(h.length, ...safe.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...safe.map(line)].join('\n');
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

/**
 * `text` as one safe line (`inlineText`) cut to `max` characters with an ellipsis; cut after
 * cleaning, so the limit counts what is shown, and by code point, so no emoji is split in half.
 */
export function clip(text: string, max: number): string {
  const safe = inlineText(text);
  if (safe.length <= max) return safe;
  let kept = '';
  for (const point of safe) {
    if (kept.length + point.length > max - 1) break;
    kept += point;
  }
  return `${kept}…`;
}

/** Which agents a task has running, as recorded (`worker`, `reviewer`, both or `-`). */
export function agents(meta: TaskMeta): string {
  const running = [meta.worker_spawn ? 'worker' : null, meta.reviewer_spawn ? 'reviewer' : null].filter(Boolean);
  return running.length ? running.join('+') : '-';
}

/** One history event as one safe line: time, type, and its facts. */
export function historyLine(event: HistoryEvent): string {
  const { timestamp, type, ...facts } = event;
  const arrow = typeof facts.from === 'string' && typeof facts.to === 'string' ? `${facts.from} → ${facts.to}` : '';
  const rest = Object.entries(facts)
    .filter(([k]) => !(arrow && (k === 'from' || k === 'to')))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return inlineText([timestamp, type, arrow, rest].filter((s) => s !== '').join('  '));
}
