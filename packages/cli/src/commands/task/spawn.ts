import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, requiredTaskIdArg } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';
import { actionFailure, reportActionFailure, transitionJson, transitionLines } from '../../command/transition-report.js';

export default class TaskSpawn extends OrangeCommand {
  static override summary = 'Start a pending task (refused while the worktree pool is exhausted).';
  static override examples = ['<%= config.bin %> task spawn V1StGXR8Z5jdHi6BmyT4a'];
  static override args = { id: requiredTaskIdArg };
  static override flags = { project: projectFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskSpawn);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const result = await orange.engine.spawn({ project: task.meta.project, id: task.meta.id }, { actor: 'person' });
    const failure = actionFailure(result.failures, `task ${result.task.meta.id} is ${result.task.meta.status}`);
    this.emit({ ...transitionJson(result), ...failure }, () => {
      for (const line of failure ? transitionLines({ ...result, failedHooks: [] }) : transitionLines(result)) this.log(line);
    });
    reportActionFailure(failure, this.json);
  }
}
