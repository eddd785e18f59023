import { describe, expect, it } from 'vitest';
import { onlyDashboardFlags } from './dashboard-args.js';

describe('onlyDashboardFlags: `orange` with these opens the dashboard (in a terminal)', () => {
  it('takes the dashboard flags alone', () => {
    for (const args of [['--all'], ['-a'], ['--project', 'web'], ['-p', 'web'], ['--project=web'], ['--all', '--exit-on-attach'], ['-p', 'web', '--interval', '500']]) {
      expect(onlyDashboardFlags(args), args.join(' ')).toBe(true);
    }
  });

  it('leaves everything else to the command table', () => {
    for (const args of [['task', 'list'], ['--help'], ['--version'], ['-p'], ['--project', '--all'], ['--all', 'task'], ['dash', '--all']]) {
      expect(onlyDashboardFlags(args), args.join(' ')).toBe(false);
    }
  });
});
