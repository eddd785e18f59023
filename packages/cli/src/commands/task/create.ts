import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { inlineText, isOrangeError, OrangeError } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag } from '../../command/flags.js';
import { resolveProject } from '../../command/locate.js';
import { readStdin } from '../../command/stdin.js';
import { actionFailure, reportActionFailure } from '../../command/transition-report.js';

export default class TaskCreate extends OrangeCommand {
  static override summary = 'Create a task and start its agent.';
  static override description = [
    'The branch defaults to orange-tasks/<id>. An empty summary starts the task in clarification,',
    'where the agent asks its questions first. A single argument with spaces is taken as the summary.',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> task create feature/login "Add a login form"',
    '<%= config.bin %> task create "Fix the flaky date test"',
    'cat spec.md | <%= config.bin %> task create fix/dates "Fix date parsing" --context -',
    '<%= config.bin %> task create feature/x "Review my branch" --status reviewing',
    '<%= config.bin %> task create fix/login --issue 123',
    '<%= config.bin %> task create fix/dates "Fix date parsing" --budget 2.50',
    '<%= config.bin %> task create fix/dates "Fix date parsing" --workflow pipeline',
  ];
  static override args = {
    branch: Args.string({ ignoreStdin: true, description: 'Git branch for the task (default: orange-tasks/<id>).' }),
    summary: Args.string({ ignoreStdin: true, description: 'One-line summary of what to do.' }),
  };
  static override flags = {
    project: projectFlag,
    context: Flags.string({ char: 'c', description: 'Requirements and constraints, written as ## Context; "-" reads standard input.' }),
    status: Flags.string({ description: 'Status to create the task in (the workflow lists which are allowed, e.g. pending, clarification, agent-review, reviewing).' }),
    spawn: Flags.boolean({
      description: 'Start the task now: its first move, worktree and agent. --no-spawn puts a pending task aside until orange task spawn; a task created in another status gets no worktree or agent until orange task respawn.',
      default: true,
      allowNo: true,
    }),
    harness: Flags.string({ description: 'Harness for the worker (claude, codex, pi, opencode, gemini, command, or a configured one).' }),
    'review-harness': Flags.string({ description: 'Harness for the reviewer.' }),
    effort: Flags.string({ description: 'Effort level passed to the worker harness.' }),
    'review-effort': Flags.string({ description: 'Effort level passed to the reviewer harness.' }),
    workflow: Flags.string({ char: 'w', description: "The workflow the task runs for life (default: the project's, then the config's): default, classic, pipeline or one of your own." }),
    budget: Flags.string({ description: 'Budget of a pipeline task, in USD (default: the pipeline plugin\'s budgetUsd).' }),
    issue: Flags.string({
      description: "Create the task from a tracker issue (123, #123 or its URL): its title is the summary, its body the ## Context, and the pull request closes it.",
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskCreate);
    const orange = await this.orange();
    const project = await resolveProject(orange, flags.project);
    const budgetUsd = flags.budget === undefined ? undefined : Number(flags.budget);
    if (budgetUsd !== undefined && !(Number.isFinite(budgetUsd) && budgetUsd > 0)) {
      throw new OrangeError('E_INVALID_INPUT', `--budget must be a positive number of USD, not "${flags.budget}"`);
    }
    let { branch, summary } = args;
    // `orange task create "fix the bug"`: a branch never contains spaces, a summary usually does.
    if (branch !== undefined && summary === undefined && /\s/.test(branch)) [branch, summary] = [undefined, branch];
    let context = flags.context === '-' ? await readStdin() : flags.context;
    let issue: { ref: string; url: string; tracker: string } | undefined;
    if (flags.issue !== undefined) {
      const tracker = orange.slot('tracker');
      const found = await tracker.issue(flags.issue, project);
      issue = { ref: found.ref, url: found.url, tracker: tracker.name };
      summary ??= found.title;
      // The issue is the context; what --context adds comes after it.
      context = [found.body.trim(), context?.trim() ?? ''].filter((part) => part !== '').join('\n\n') || undefined;
    }
    const result = await orange.engine.createTask({
      actor: 'person',
      project: project.name,
      ...(flags.workflow !== undefined ? { workflow: flags.workflow } : {}),
      branch,
      summary,
      status: flags.status,
      context,
      harness: flags.harness ?? null,
      reviewHarness: flags['review-harness'] ?? null,
      effort: flags.effort ?? null,
      reviewEffort: flags['review-effort'] ?? null,
      spawn: flags.spawn && flags.status !== 'reviewing',
      issue,
      ...(budgetUsd !== undefined ? { fields: { budget_usd: budgetUsd } } : {}),
    }).catch((error: unknown) => {
      throw asBudgetFlag(error, project.name);
    });
    const { meta } = result.task;
    const failure = actionFailure(result.failures, `task ${meta.id} was created (${meta.status})`);
    const json = {
      task: meta,
      spawned: result.spawned,
      failedHooks: result.failedHooks,
      failures: result.failures,
      ...(result.queuedReason ? { queuedReason: result.queuedReason } : {}),
      ...failure,
    };
    this.emit(json, () => {
      this.log(inlineText(`created task ${meta.id} on ${meta.branch} (${meta.status})${issue ? ` from issue ${issue.ref}` : ''}`));
      if (result.queuedReason) this.log(`not started yet: ${inlineText(result.queuedReason)}; it starts when a running task of the project is done, or with: orange task spawn ${meta.id}`);
      else if (!result.spawned && meta.status === 'pending') this.log(`start it with: orange task spawn ${meta.id}`);
    });
    reportActionFailure(failure, this.json);
  }
}

/** The engine's refusal of a field the workflow does not declare, said as the flag that set it (`--budget`). */
function asBudgetFlag(error: unknown, project: string): unknown {
  if (!isOrangeError(error) || error.code !== 'E_INVALID_INPUT' || error.details.field !== 'budget_usd') return error;
  return new OrangeError('E_INVALID_INPUT', `--budget is for pipeline tasks; project ${project} runs the ${String(error.details.workflow)} workflow, which has no budget`);
}
