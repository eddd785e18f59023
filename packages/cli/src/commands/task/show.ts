import { blockText, inlineText } from '@orange/core';
import { OrangeCommand } from '../../base-command.js';
import { projectFlag, taskIdArg } from '../../flags.js';
import { resolveTaskRef } from '../../locate.js';
import { historyLine } from '../../render.js';

export default class TaskShow extends OrangeCommand {
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
    this.emit({ task: task.meta, body: task.body, history, tampered }, () => {
      for (const [key, value] of Object.entries(task.meta)) this.log(inlineText(`${key}: ${value === null ? '-' : String(value)}`));
      if (tampered) {
        const list = fields.map((f) => `${f.field} ${JSON.stringify(f.found)} (of record: ${JSON.stringify(f.expected)})`).join(', ');
        this.log(`\n${inlineText(`warning: TASK.md was edited by hand: ${list}; run: orange task repair ${id}`)}`);
      }
      this.log(`\n${task.body.trim() === '' ? '(empty body)' : blockText(task.body.trimEnd())}\n`);
      this.log('History:');
      for (const event of history) this.log(`  ${historyLine(event)}`);
    });
  }
}
