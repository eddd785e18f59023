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
