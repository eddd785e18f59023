import * as Flags from '@oclif/core/flags';
import { inlineText, Monitor, MonitorLease, onSignals, OrangeError, type MonitorReport } from '@orange/core';
import { OrangeCommand } from '../command/base-command.js';
import { startGateway } from '../gateway/start-gateway.js';

export default class MonitorCommand extends OrangeCommand {
  static override summary = 'Watch agents: apply exit rules to dead agents, reap orphans, sync pull requests.';
  static override description = [
    'Agent exits are normally reported the moment they happen; this loop is the backstop for',
    'sessions killed from outside, reboots, orphaned worktrees and sessions, and pull requests',
    'merged or closed on GitHub. Stops cleanly (exit 0) on Ctrl-C or SIGTERM.',
  ].join(' ');
  static override examples = ['<%= config.bin %> monitor', '<%= config.bin %> monitor --once --json', '<%= config.bin %> monitor --project app --interval 5000'];
  static override flags = {
    once: Flags.boolean({ description: 'Run a single pass and exit.', default: false }),
    project: Flags.string({ char: 'p', description: "Only this project's tasks (default: all)." }),
    interval: Flags.integer({ description: 'Milliseconds between passes (default: the config\'s pollIntervalMs, 30000).', min: 200 }),
    gateway: Flags.boolean({
      description: "Answer agents' calls over the gateway socket ($ORANGE_HOME/gateway/agents.sock); --no-gateway leaves them to the CLI.",
      default: true,
      allowNo: true,
    }),
  };

  // Long-lived: delivers its notifications itself (and, on every pass, what the outbox still holds).
  protected override notificationDelivery = 'in-process' as const;

  async run(): Promise<void> {
    const { flags } = await this.parse(MonitorCommand);
    const orange = await this.orange();
    if (flags.project) await orange.projects.get(flags.project);
    const monitor = new Monitor(orange, { project: flags.project, intervalMs: flags.interval });
    if (flags.once) {
      const report = await monitor.pass();
      // The pass's notifications and its outbox flush, all of it: one pass is what was asked for.
      await orange.notifications.settle();
      this.emit(report, () => this.printReport(report, true));
      return;
    }
    // A dashboard polling every project sees this monitor in the lease on its next turn and leaves
    // the poll to it; one of another project goes on polling (this one covers only its own).
    const lease = new MonitorLease(orange.paths);
    const other = await lease.take(flags.project ?? null);
    if (other) {
      throw new OrangeError(
        'E_LOCKED',
        `orange monitor pid ${other.pid} already watches ${other.project === null ? 'every project' : `project ${other.project}`}; stop it first, or run one pass with --once`,
        { pid: other.pid },
      );
    }
    const stop = new AbortController();
    const offSignals = onSignals(['SIGINT', 'SIGTERM'], () => stop.abort());
    const dir = await this.configDir();
    const serve = () => startGateway(this.config, orange, dir, (cwd) => this.buildOrange(cwd, 'in-process'));
    let gateway = flags.gateway ? await serve() : null;
    // A dashboard that served agents when this monitor started may have closed since: take over then.
    let taking: Promise<void> | null = null;
    const takeOver = () => {
      if (!flags.gateway || gateway || taking || stop.signal.aborted) return;
      taking = serve().then(
        (started) => {
          gateway = started;
          taking = null;
        },
        () => {
          taking = null;
        },
      );
    };
    try {
      if (!this.json) this.log(`monitoring ${flags.project ?? 'all projects'} every ${flags.interval ?? orange.config.pollIntervalMs} ms (Ctrl-C to stop)`);
      await monitor.run(stop.signal, (report) => {
        takeOver();
        // One JSON object per line with --json, so a consumer can stream the passes.
        if (this.json) this.logJson(report, false);
        else this.printReport(report, false);
      });
    } finally {
      offSignals();
      await taking;
      await gateway?.close();
      await lease.release();
    }
  }

  private printReport(report: MonitorReport, always: boolean): void {
    const stamp = new Date().toISOString();
    const lines = [
      ...report.exits.map((exit) => `${exit.task} ${exit.role} exited: ${exit.decision} (${exit.reason})`),
      ...report.sessionsKilled.map((session) => `killed orphan session ${session}`),
      ...report.workspacesFreed.map((workspace) => `freed worktree ${workspace}`),
      ...report.tasksStarted.map((task) => `${task} started (queued for a worktree)`),
      ...report.pullRequests.map((pr) => `${pr.task} pull request ${pr.state}${pr.to ? ` → ${pr.to}` : ''}`),
      ...report.reactions.map((r) => `${r.task} reaction ${r.reaction}: ${r.outcome}`),
      ...report.stale.map((id) => `${id} stale: in one active status longer than notifications.staleAfterMs`),
    ];
    for (const line of lines) this.log(`${stamp} ${inlineText(line)}`);
    if (always) this.log(`checked ${report.tasks} tasks, ${report.agentsChecked} agents in ${report.durationMs.toFixed(0)} ms`);
  }
}
