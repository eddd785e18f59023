/** The command line of the window reaper (`dist/window-reaper.js`): built by the action, parsed by the reaper. */
export interface ReaperArgs {
  /** The tmux executable. */
  readonly tmux: string;
  readonly socket: string | undefined;
  /** The process to outlive: the `orange` call that asked for the kill. */
  readonly after: number;
  /** How its exit is noticed: the end of standard input (a pipe that process holds), or its /proc entry. */
  readonly watch: 'stdin' | 'poll';
  /** Orange's log file. */
  readonly log: string;
  /** tmux window ids (`@12`): unique on the server, so a window started later is never hit. */
  readonly windows: readonly string[];
}

/** The reaper's arguments (after the script path). */
export function reaperArgv(args: ReaperArgs): string[] {
  return ['--tmux', args.tmux, ...(args.socket ? ['--socket', args.socket] : []), '--after', String(args.after), '--watch', args.watch, '--log', args.log, '--', ...args.windows];
}

/** Reads what {@link reaperArgv} wrote; null for anything else. */
export function parseReaperArgv(argv: readonly string[]): ReaperArgs | null {
  const split = argv.indexOf('--');
  if (split < 0) return null;
  const flags = new Map<string, string>();
  for (let i = 0; i < split; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (!flag?.startsWith('--') || value === undefined) return null;
    flags.set(flag.slice(2), value);
  }
  const after = Number(flags.get('after'));
  const tmux = flags.get('tmux');
  const log = flags.get('log');
  if (!tmux || !log || !Number.isInteger(after) || after <= 1) return null;
  const watch = flags.get('watch') === 'stdin' ? 'stdin' : 'poll';
  return { tmux, socket: flags.get('socket'), after, watch, log, windows: argv.slice(split + 1).filter((w) => /^@\d+$/.test(w)) };
}
