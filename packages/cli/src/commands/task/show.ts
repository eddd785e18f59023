import { blockText, inlineText } from '@orange/core';
import { OrangeCommand } from '../../base-command.js';
import { projectFlag, taskIdArg } from '../../flags.js';
import { resolveTask } from '../../locate.js';
import { historyLine } from '../../render.js';

export default class TaskShow extends OrangeCommand {
  static override summary = 'Show a task: frontmatter, TASK.md body and history.';
  static override examples = ['<%= config.bin %> task show V1StGXR8Z5jdHi6BmyT4a', '<%= config.bin %> task show --json   # inside a worktree'];
  static override args = { id: taskIdArg };
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskShow);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const { project, id } = task.meta;
    const history = await orange.store.history(project, id);
    const ledger = await orange.store.ledgerStatus(project, id);
    const tampered = ledger !== null && ledger !== task.meta.status ? { file: task.meta.status, ledger } : null;
    this.emit({ task: task.meta, body: task.body, history, tampered }, () => {
      for (const [key, value] of Object.entries(task.meta)) this.log(inlineText(`${key}: ${value === null ? '-' : String(value)}`));
      if (tampered) this.log(`\n${inlineText(`warning: TASK.md says "${tampered.file}" but the ledger says "${tampered.ledger}"; run: orange task repair ${id}`)}`);
      this.log(`\n${task.body.trim() === '' ? '(empty body)' : blockText(task.body.trimEnd())}\n`);
      this.log('History:');
      for (const event of history) this.log(`  ${historyLine(event)}`);
    });
  }
}
