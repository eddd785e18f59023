import * as Flags from '@oclif/core/flags';
import { inlineText } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag } from '../../command/flags.js';
import { resolveTask } from '../../command/locate.js';

export default class PipelineRun extends OrangeCommand {
  static override audience = 'agent' as const;
  static override summary = "Drive a pipeline task until it waits, stops or ends (started by Orange in the task's tmux session).";
  static override description = 'Runs the classifier, the phases and the checks headless, asking for every transition. Use `orange task resume` to restart a driver that died.';
  static override hidden = true;
  // `--task ID` as in every process Orange starts for a task (the agent wrapper, `agent exited`):
  // one marker finds them all, e.g. to wait for them before a task's folder goes.
  static override flags = { project: projectFlag, task: Flags.string({ required: true, description: 'Task id.' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(PipelineRun);
    const orange = await this.orange();
    const task = await resolveTask(orange, flags.task, flags.project);
    // The driver runs as its task's agent (its worker spawn): it drives only that task.
    await this.writer(orange, { project: task.meta.project, id: task.meta.id }, 'drives');
    const { runPipeline } = await import('@orange/plugin-pipeline');
    const after = await runPipeline(orange, { project: task.meta.project, id: task.meta.id }).catch((error: unknown) => {
      // Nobody reads the driver's terminal: the reason it stopped goes to orange.log too.
      orange.log.error('pipeline driver stopped', { task: task.meta.id, error: error instanceof Error ? error.message : String(error) });
      throw error;
    });
    this.emit({ task: after.meta }, () => this.log(inlineText(`task ${after.meta.id}: pipeline ${after.meta.status}`)));
  }
}
