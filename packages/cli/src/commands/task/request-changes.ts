import * as Flags from '@oclif/core/flags';
import { requestChanges } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, requiredTaskIdArg } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';
import { readStdin } from '../../command/stdin.js';
import { transitionJson, transitionLines } from '../../command/transition-report.js';

export default class TaskRequestChanges extends OrangeCommand {
  static override summary = 'Send a task in reviewing back to its worker, with optional instructions (the dashboard\'s r).';
  static override description = [
    'The instructions (--notes TEXT, or --notes - to read standard input) are added to ## Notes with',
    'the time; then reviewing → working, whose notify_worker tells the worker to read ## Review and',
    '## Notes. Refused for a task in any other status.',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> task request-changes V1StGXR8Z5jdHi6BmyT4a',
    '<%= config.bin %> task request-changes V1StGXR8Z5jdHi6BmyT4a --notes "rename the flag to --dry-run"',
    'cat review.md | <%= config.bin %> task request-changes V1StGXR8Z5jdHi6BmyT4a --notes -',
  ];
  static override args = { id: requiredTaskIdArg };
  static override flags = {
    project: projectFlag,
    notes: Flags.string({ char: 'n', description: 'Instructions for the worker, added to ## Notes; "-" reads standard input.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskRequestChanges);
    const orange = await this.orange();
    const task = await resolveTask(orange, args.id, flags.project);
    const notes = flags.notes === '-' ? await readStdin() : (flags.notes ?? '');
    const result = await requestChanges(orange, { project: task.meta.project, id: task.meta.id }, notes);
    this.emit(transitionJson(result), () => {
      for (const line of transitionLines(result)) this.log(line);
    });
  }
}
