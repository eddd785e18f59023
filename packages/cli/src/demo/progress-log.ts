/** One progress line of the demo, and when what it tells happened (ms since the epoch). */
export interface ProgressLine {
  readonly at: number;
  readonly text: string;
}

/**
 * The demo's progress lines in the order their events happened. The demo reads its sources one
 * after another — each task's history and agent log, then its own merges — so a line read later
 * can tell of something earlier (task B's move, read after task A's merge that followed it).
 * Lines wait here until every source has been read past their time, then come out oldest first.
 */
export class ProgressLog {
  private pending: Array<ProgressLine & { readonly order: number }> = [];
  private added = 0;

  /** A line about something that happened at `at`. */
  add(at: number, text: string): void {
    this.pending.push({ at, text, order: this.added++ });
  }

  /** The lines of what happened up to `upTo`, oldest first (equal times in the order added); later ones wait. */
  take(upTo: number): ProgressLine[] {
    const due = this.pending.filter((line) => line.at <= upTo);
    this.pending = this.pending.filter((line) => line.at > upTo);
    return due.sort((a, b) => a.at - b.at || a.order - b.order).map(({ at, text }) => ({ at, text }));
  }
}

/**
 * When an agent log line (`[HH:MM:SS.mmm] worker: …`, UTC time of day) was written: on the day of
 * `now`, or the day before when that would be in the future (a run across midnight). Null without a time.
 */
export function agentLogTime(line: string, now: number): number | null {
  const match = /^\[(\d{2}):(\d{2}):(\d{2})\.(\d{3})\]/.exec(line);
  if (!match) return null;
  const [hours, minutes, seconds, ms] = match.slice(1).map(Number) as [number, number, number, number];
  const day = new Date(now);
  const at = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hours, minutes, seconds, ms);
  return at > now + 60_000 ? at - 86_400_000 : at;
}
