import { describe, expect, it } from 'vitest';
import { usageMessage } from './error-output.js';

/** oclif's text for failed flag rules, as its parser builds it (the list dimmed on a terminal). */
const failed = (...reasons: string[]) =>
  `The following error${reasons.length === 1 ? '' : 's'} occurred:\n  \u001b[2m${reasons.join('\n  ')}\u001b[22m\nSee more help with --help`;

describe('usageMessage', () => {
  it('says two exclusive flags as one sentence, without oclif heading, values or colour', () => {
    expect(usageMessage(failed('--project=demo cannot also be provided when using --all'))).toBe('--all and --project cannot be used together; pass one of them');
    expect(usageMessage(failed('--all=true cannot also be provided when using --project'))).toBe('--project and --all cannot be used together; pass one of them');
    expect(usageMessage(failed('--dash cannot also be provided when using --web'))).toBe('--web and --dash cannot be used together; pass one of them');
  });

  it("says oclif's other flag rules in Orange's words, one sentence per reason", () => {
    expect(usageMessage(failed('Missing required flag name', 'All of the following must be provided when using --to: --from, --at'))).toBe('--name is required; --to needs --from and --at');
    expect(usageMessage(failed('One of the following must be provided when using --to: --from, --at, --by'))).toBe('--to needs one of --from, --at or --by');
    expect(usageMessage(failed('Only the following can be provided when using --all: --json'))).toBe('--all can only be used with --json');
    expect(usageMessage(failed('Exactly one of the following must be provided: --a, --b'))).toBe('pass exactly one of --a or --b');
    expect(usageMessage(failed('At least one of the following must be provided: --a, --b'))).toBe('pass at least one of --a or --b');
  });

  it("keeps a reason it does not know, and any other parse error's text, minus the help line", () => {
    expect(usageMessage(failed('--x must be even'))).toBe('--x must be even');
    expect(usageMessage('Nonexistent flag: --bogus\nSee more help with --help')).toBe('Nonexistent flag: --bogus');
  });
});
