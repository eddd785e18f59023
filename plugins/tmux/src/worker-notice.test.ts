import { describe, expect, it } from 'vitest';
import { workerNotice } from './worker-notice.js';

describe('workerNotice', () => {
  it('tells the worker a failed review means fix, update the handoff and ask for review again', () => {
    const text = workerNotice('agent-review', 'working', { review_round: 1 });
    expect(text).toContain('Review round 1 FAILED');
    expect(text).toContain('## Review');
    expect(text).toContain('## Handoff');
    expect(text).toContain('orange task update --status agent-review');
  });

  it('tells the worker a passed review leaves nothing to do', () => {
    expect(workerNotice('agent-review', 'reviewing', { review_round: 1 })).toMatch(/PASSED.*Nothing more to do unless a human asks/);
  });

  it('tells the worker a human asked for changes and where to read them', () => {
    const text = workerNotice('reviewing', 'working', { review_round: 1 });
    expect(text).toMatch(/human requested changes/);
    expect(text).toContain('## Notes');
  });

  it('tells the worker why Orange moved it back to working (a pull request reaction), not that a human did', () => {
    const text = workerNotice('reviewing', 'working', { review_round: 1 }, { cause: 'auto', reason: 'CI failed: test' });
    expect(text).toMatch(/^\[orange\] Back to working: CI failed: test\. Read TASK\.md \(## Feedback/);
    expect(text).not.toMatch(/human/);
    expect(workerNotice('reviewing', 'working', { review_round: 1 }, { cause: 'request' })).toMatch(/human requested changes/);
  });

  it('is always a single line (a newline would submit half a message)', () => {
    for (const [from, to] of [['agent-review', 'working'], ['agent-review', 'reviewing'], ['reviewing', 'working'], [null, 'x']] as const) {
      expect(workerNotice(from, to, { review_round: 1 })).not.toMatch(/\n/);
    }
  });
});
