import * as Flags from '@oclif/core/flags';
import { inlineText, relativeTime, type AgentRole, type ListedTask, type RuntimeSnapshot, type TaskMeta, type Workflow } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag } from '../../command/flags.js';
import { inferProject } from '../../command/locate.js';
import { agents, clip, table } from '../../output/render.js';
import { writeStderr } from '../../gateway/served-call.js';

/** What `task list` flags about one task beyond its fields. */
interface TaskFlags {
  /** Engine-owned fields TASK.md shows with forged values. */
  readonly tampered: readonly string[];
  /** Agents that should be running (the responsible one, or one with a recorded spawn) and are not. */
  readonly dead: readonly AgentRole[];
  /** What needs a human, when something does. */
  readonly attention?: Attention;
}

/** Why a task is marked `!`: a vetoed exit rule, a failed action, or a crashed agent. */
interface Attention {
  readonly kind: 'veto' | 'failed-hook' | 'crash' | 'other';
  readonly reason: string;
}

export default class TaskList extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = 'List tasks: active first, then by most recent update.';
  static override description = 'Inside a registered repository only its tasks are listed; elsewhere, or with --all, every project\'s.';
  static override examples = ['<%= config.bin %> task list', '<%= config.bin %> task list --status working --status agent-review', '<%= config.bin %> task list --all --json'];
  static override flags = {
    project: projectFlag,
    status: Flags.string({ char: 's', description: 'Only tasks in this status (repeatable, or comma-separated).', multiple: true }),
    all: Flags.boolean({ char: 'a', description: 'Tasks of every project.', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(TaskList);
    const orange = await this.orange();
    const scope = flags.all ? undefined : flags.project ? (await orange.projects.get(flags.project)).name : (await inferProject(orange))?.name;
    const { tasks, unreadable } = await orange.store.list(scope);
    const wanted = new Set((flags.status ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean));
    // The promise is kept, not the result: the rows below ask for every task at once, and each
    // lookup reads projects.json.
    // One workflow lookup per workflow (each task runs its own; older ones their project's), not per
    // task: 10,000 rows asked at once would read projects.json 10,000 times.
    const listed = tasks.filter((t) => wanted.size === 0 || wanted.has(t.meta.status));
    const workflows = new Map<string, Workflow>();
    const keyOf = (meta: { workflow?: string | null; project: string }) => (meta.workflow ? `w:${meta.workflow}` : `p:${meta.project}`);
    for (const task of listed) if (!workflows.has(keyOf(task.meta))) workflows.set(keyOf(task.meta), await orange.workflowFor(task.meta));
    const rows = listed.map((task) => {
      const workflow = workflows.get(keyOf(task.meta))!;
      return { task, workflow, terminal: workflow.isTerminal(task.meta.status) };
    });
    // updated_at is ISO 8601 UTC, so code-unit order is time order (localeCompare costs ~2× as much).
    rows.sort((a, b) => Number(a.terminal) - Number(b.terminal) || (a.task.meta.updated_at < b.task.meta.updated_at ? 1 : a.task.meta.updated_at > b.task.meta.updated_at ? -1 : 0));
    const runtime = orange.maybeSlot('runtime');
    const needsLiveness = rows.some((r) => r.workflow.isActive(r.task.meta.status));
    const snapshot = runtime && needsLiveness ? await runtime.snapshot().catch(() => null) : null;
    const flagsOf = new Map<string, TaskFlags>();
    for (const { task, workflow } of rows) {
      const dead = snapshot ? deadAgents(task, workflow, snapshot) : [];
      const attention = attentionOf(task, workflow);
      if (dead.length > 0 || task.tampered.length > 0 || attention) flagsOf.set(task.meta.id, { tampered: task.tampered, dead, ...(attention ? { attention } : {}) });
    }
    const sorted = rows.map((r) => r.task);
    for (const u of unreadable) writeStderr(`${inlineText(`warning: task ${u.project}/${u.id} is unreadable: ${u.error}`)}\n`);
    this.emit({ tasks: sorted.map((t) => t.meta), flags: Object.fromEntries(flagsOf), unreadable }, () => {
      if (sorted.length === 0) {
        this.log(scope ? `no tasks in ${scope}` : 'no tasks');
        return;
      }
      const showProject = scope === undefined;
      const showPipeline = sorted.some((t) => 'pipeline_phases' in t.meta);
      const headers = ['ID', ...(showProject ? ['PROJECT'] : []), 'STATUS', ...(showPipeline ? ['PIPELINE'] : []), 'BRANCH', 'AGENTS', 'UPDATED', 'SUMMARY'];
      const body = sorted.map((t) => {
        const marks = flagsOf.get(t.meta.id);
        return [
          t.meta.id,
          ...(showProject ? [t.meta.project] : []),
          `${t.meta.status}${marks?.attention ? ' !' : ''}${marks?.tampered.length ? ' ⚠' : ''}`,
          ...(showPipeline ? [pipelineCell(t.meta)] : []),
          clip(t.meta.branch, 40),
          [agents(t.meta), ...(marks?.dead ?? []).map((role) => `✗${role}`)].filter((a) => a !== '-' || !marks?.dead.length).join(' '),
          relativeTime(t.meta.updated_at),
          clip(t.meta.summary, 60),
        ];
      });
      this.log(table(headers, body));
      const legend: string[] = [];
      const flagged = sorted.filter((t) => flagsOf.get(t.meta.id)?.attention);
      if (flagged.length) {
        legend.push('! needs attention (see orange task show <id>):');
        for (const t of flagged.slice(0, ATTENTION_LINES)) legend.push(`  ${t.meta.id}  ${attentionLine(flagsOf.get(t.meta.id)?.attention as Attention)}`);
        if (flagged.length > ATTENTION_LINES) legend.push(`  … and ${flagged.length - ATTENTION_LINES} more (orange task list --json)`);
      }
      if ([...flagsOf.values()].some((f) => f.tampered.length)) legend.push('⚠ TASK.md was edited by hand in an engine-owned field; run orange task repair <id>');
      const dead = rows.filter((r) => flagsOf.get(r.task.meta.id)?.dead.length);
      if (dead.length) {
        // A pipeline task's "agent" is its driver: respawn resumes it from the checkpoint, as task resume does.
        const driven = dead.some((r) => r.workflow.name === 'pipeline');
        legend.push(`✗ agent not running; start it again with orange task respawn <id>${driven ? ' (a pipeline task: its driver resumes from the checkpoint, as with orange task resume <id>)' : ''}`);
      }
      if (legend.length) this.log(`\n${legend.join('\n')}`);
    });
  }
}

/** Tasks named under the legend's `!` line; the rest are counted. */
const ATTENTION_LINES = 10;

/** What of a task needs a human: the engine's `attention` note (a vetoed exit rule, a failed action), else a crash. */
function attentionOf(task: ListedTask, workflow: Workflow): Attention | undefined {
  const note = task.meta.attention;
  if (note) {
    if (note.startsWith('exit rule refused')) return { kind: 'veto', reason: note };
    if (/^hooks? failed/.test(note)) return { kind: 'failed-hook', reason: note };
    return { kind: 'other', reason: note };
  }
  if (task.meta.crash_count > 0 && workflow.isActive(task.meta.status)) {
    const times = task.meta.crash_count === 1 ? 'once' : `${task.meta.crash_count} times`;
    return { kind: 'crash', reason: `its agent crashed ${times} in ${task.meta.status}` };
  }
  return undefined;
}

/** One legend line: what happened and what to do about it. */
function attentionLine(attention: Attention): string {
  switch (attention.kind) {
    case 'veto':
      return `an exit rule's move was vetoed, the agent is gone: ${clip(attention.reason.replace(/^exit rule refused: /, ''), 80)} (move it with orange task update --status, or respawn)`;
    case 'failed-hook':
      return `${clip(attention.reason, 60)} after the status changed (orange log --grep <id>; respawn if no agent runs)`;
    case 'crash':
      return `${attention.reason} (one more crash and it is stuck)`;
    case 'other':
      return clip(attention.reason, 100);
  }
}

/** A pipeline task's phase, tier, attempt and cost/budget: `fix 2/2 haiku #1 $0.05/$5.00`. */
function pipelineCell(meta: TaskMeta): string {
  if (!('pipeline_phases' in meta)) return '-';
  const phases = String(meta.pipeline_phases ?? '').split(',').filter(Boolean);
  const phase = String(meta.phase ?? '');
  const step = phases.length > 0 && phase ? `${clip(phase, 16)} ${phases.indexOf(phase) + 1}/${phases.length} ` : '';
  const tier = meta.tier ? `${clip(String(meta.tier), 16)} #${Number(meta.attempt ?? 0)} ` : '';
  const usd = (v: unknown) => `$${(typeof v === 'number' ? v : 0).toFixed(2)}`;
  return `${step}${tier}${usd(meta.cost_total_usd)}/${usd(meta.budget_usd)}`;
}

/** The agents a task should have running that the runtime does not show alive. */
function deadAgents(task: ListedTask, workflow: Workflow, snapshot: RuntimeSnapshot): AgentRole[] {
  return workflow.expectedAgents(task.meta).filter((role) => !snapshot.isAlive(task.meta, role));
}
