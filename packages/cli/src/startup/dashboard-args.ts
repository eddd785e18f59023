/** True when `args` are all flags `orange dash` takes (`--all`, `--project NAME`, `--exit-on-attach`, `--interval MS`). */
export function onlyDashboardFlags(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (['--all', '-a', '--exit-on-attach'].includes(arg)) continue;
    if (/^(--project|--interval)=./.test(arg)) continue;
    if (['--project', '-p', '--interval'].includes(arg) && args[i + 1] !== undefined && !args[i + 1]?.startsWith('-')) {
      i++;
      continue;
    }
    return false;
  }
  return true;
}
