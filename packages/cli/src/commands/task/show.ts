import { blockText, inlineText, listTranscripts, relativeTime, type HistoryEvent } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, taskIdArg } from '../../command/flags.js';
import { resolveTaskRef } from '../../command/locate.js';
import { historyLine } from '../../output/render.js';

export default class TaskShow extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = 'Show a task: frontmatter, TASK.md body and history.';
  static override examples = ['<%= config.bin %> task show V1StGXR8Z5jdHi6BmyT4a', '<%= config.bin %> task show --json   # inside a worktree'];
  static override args = { id: taskIdArg };
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskShow);
    const orange = await this.orange();
    const { project, id } = await resolveTaskRef(orange, args.id, flags.project);
    // A TASK.md naming another task is shown as what it is (forged), never as that other task.
    const { task, tampered: forged } = await orange.store.inspect(project, id, { acceptForeign: true });
    const history = await orange.store.history(project, id);
    const ledger = await orange.store.ledgerStatus(project, id);
    const fields = [...forged];
    if (ledger !== null && ledger !== task.meta.status && !fields.some((f) => f.field === 'status')) fields.push({ field: 'status', expected: ledger, found: task.meta.status });
    const status = fields.find((f) => f.field === 'status');
    const tampered = fields.length === 0 ? null : { fields, ...(status ? { file: status.found, ledger: status.expected } : {}) };
    const agents = agentsRun(history);
    const transcripts = await listTranscripts(orange.paths, project, id);
    this.emit({ task: task.meta, body: task.body, history, tampered, agents, transcripts }, () => {
      for (const [key, value] of Object.entries(task.meta)) {
        // `harness` is what was asked for (often nothing: the default); say what actually ran.
        const ran = key === 'harness' || key === 'review_harness' ? agents.filter((a) => a.role === (key === 'harness' ? 'worker' : 'reviewer')).at(-1)?.harness : undefined;
        this.log(inlineText(`${key}: ${value === null ? '-' : String(value)}${ran !== undefined && ran !== value ? ` (ran: ${ran})` : ''}`));
      }
      if (tampered) {
        const list = fields.map((f) => `${f.field} ${JSON.stringify(f.found)} (of record: ${JSON.stringify(f.expected)})`).join(', ');
        this.log(`\n${inlineText(`warning: TASK.md was edited by hand: ${list}; run: orange task repair ${id}`)}`);
      }
      this.log(`\n${task.body.trim() === '' ? '(empty body)' : blockText(task.body.trimEnd())}\n`);
      if (transcripts.length) {
        this.log('Transcripts (orange task output <id> --spawn <spawn>):');
        for (const t of transcripts) {
          const harness = agents.find((a) => a.spawn === t.spawn)?.harness ?? '?';
          this.log(inlineText(`  ${t.role.padEnd(8)}  ${t.spawn}  ${harness}  ${size(t.bytes)}  ${relativeTime(t.updated_at)}  ${t.file}`));
        }
        this.log('');
      }
      this.log('History:');
      for (const event of history) this.log(`  ${historyLine(event)}`);
    });
  }
}

/** One agent spawn as the ledger has it: who ran, with which harness, when. */
interface AgentRun {
  readonly role: string;
  readonly spawn: string;
  readonly harness: string | null;
  readonly at: string;
}

/** Every agent spawn recorded in the history, oldest first. */
function agentsRun(history: readonly HistoryEvent[]): AgentRun[] {
  return history
    .filter((e) => e.type === 'agent.spawned' && typeof e.spawn === 'string' && typeof e.role === 'string')
    .map((e) => ({ role: e.role as string, spawn: e.spawn as string, harness: typeof e.harness === 'string' ? e.harness : null, at: e.timestamp }));
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
