import { describe, expect, it } from 'vitest';
import { agentLogTime, ProgressLog } from './progress-log.js';

describe('the demo progress log', () => {
  it('prints what happened first first, though its source was read later', () => {
    const log = new ProgressLog();
    // One poll: task A's history read first (its merge at 1.5 s), then task B's (a move at 1.2 s).
    log.add(1500, 'task A  reviewing → done (merged)');
    log.add(1200, 'task B  working → agent-review');
    log.add(1400, 'task B    reviewer agent started in window review-1');
    expect(log.take(2000).map((l) => l.text)).toEqual(['task B  working → agent-review', 'task B    reviewer agent started in window review-1', 'task A  reviewing → done (merged)']);
    expect(log.take(2000)).toEqual([]);
  });

  it('holds a line newer than the sources were read, until a later poll has read past it', () => {
    const log = new ProgressLog();
    // The demo's own merge, said as it starts (2.1 s), after a poll that read up to 2.0 s.
    log.add(2100, 'task A  the human reviews the branch and merges it');
    log.add(1900, 'task C  planning → working');
    expect(log.take(2000)).toEqual([{ at: 1900, text: 'task C  planning → working' }]);
    // The next poll reads task B's move during that merge: it comes out before the merge's own events.
    log.add(2600, 'task A  reviewing → done (merged)');
    log.add(2300, 'task B  agent-review → working');
    expect(log.take(3000).map((l) => l.at)).toEqual([2100, 2300, 2600]);
  });

  it('keeps lines of the same time in the order they were added (a history is in order already)', () => {
    const log = new ProgressLog();
    log.add(1000, 'first');
    log.add(1000, 'second');
    log.add(999, 'earlier');
    expect(log.take(Number.POSITIVE_INFINITY).map((l) => l.text)).toEqual(['earlier', 'first', 'second']);
  });
});

describe('agentLogTime', () => {
  const now = Date.parse('2025-06-01T10:00:05.000Z');
  it("reads an agent log line's UTC time of day on the day of now", () => {
    expect(agentLogTime('[10:00:04.250] worker: orange task update → refused: no handoff', now)).toBe(Date.parse('2025-06-01T10:00:04.250Z'));
  });
  it('puts a time after now on the day before (a run across midnight)', () => {
    const justAfterMidnight = Date.parse('2025-06-02T00:00:01.000Z');
    expect(agentLogTime('[23:59:59.900] worker: x', justAfterMidnight)).toBe(Date.parse('2025-06-01T23:59:59.900Z'));
  });
  it('is null for a line without a time', () => {
    expect(agentLogTime('worker: x', now)).toBeNull();
  });
});
