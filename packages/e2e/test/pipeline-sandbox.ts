import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pluginUrl, Sandbox } from './sandbox.js';

/** The scripted headless agent: each run does what the plan says for its phase (pipeline-agent.mjs). */
export const PIPELINE_AGENT = join(dirname(fileURLToPath(import.meta.url)), 'pipeline-agent.mjs');

/** What the scripted agent does for the n-th run of each phase (see pipeline-agent.mjs). */
export type PipelinePlan = Record<string, readonly unknown[]>;

/** One run of the scripted agent, as it logged it. */
export interface PipelineCall {
  readonly phase: string;
  readonly model: string;
  readonly prompt: string;
  readonly seen: string;
  readonly pid: number;
  /** $ORANGE_PROMPT, $ORANGE_STATUS, $ORANGE_PHASE, $ORANGE_MODEL as the run saw them. */
  readonly env: { readonly prompt?: string; readonly status?: string; readonly phase?: string; readonly model?: string };
}

export interface PipelineSandboxOptions {
  /** The pipeline plugin's options (default: one intent, bugfix, with one phase, fix). */
  readonly settings?: Record<string, unknown>;
  /** More import lines and plugin expressions for the config. */
  readonly imports?: readonly string[];
  readonly plugins?: readonly string[];
}

/**
 * A sandbox whose tasks run the pipeline workflow, the classifier and every phase a headless run
 * of the scripted agent following `plan` (in `plan.json`; each run logged to `calls.jsonl`).
 */
export async function pipelineSandbox(plan: PipelinePlan, options: PipelineSandboxOptions = {}): Promise<Sandbox> {
  const b = await Sandbox.create();
  await writeFile(join(b.dir, 'plan.json'), JSON.stringify(plan));
  const scripted = {
    name: 'scripted',
    headless: [process.execPath, PIPELINE_AGENT, '{phase}', '{model}', '{prompt}'],
    tiers: ['haiku', 'sonnet', 'opus'],
    env: { PIPELINE_PLAN: join(b.dir, 'plan.json'), PIPELINE_CALLS: join(b.dir, 'calls.jsonl') },
  };
  const settings = options.settings ?? { intents: { bugfix: { phases: ['fix'] } } };
  await writeFile(
    join(b.dir, 'orange.config.mjs'),
    [
      `import { command } from ${JSON.stringify(pluginUrl('plugins/harness-command'))};`,
      `import { pipeline } from ${JSON.stringify(pluginUrl('plugins/pipeline'))};`,
      ...(options.imports ?? []),
      'export default {',
      "  harness: 'scripted',",
      "  workflow: 'pipeline',",
      "  logLevel: 'debug',",
      `  plugins: [${[`command(${JSON.stringify(scripted)})`, `pipeline(${JSON.stringify(settings)})`, ...(options.plugins ?? [])].join(', ')}],`,
      '};',
      '',
    ].join('\n'),
  );
  return b;
}

/** The scripted agent's runs so far, in order. */
export async function pipelineCalls(b: Sandbox): Promise<PipelineCall[]> {
  const text = await readFile(join(b.dir, 'calls.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as PipelineCall);
}
