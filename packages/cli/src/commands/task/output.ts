import * as Flags from '@oclif/core/flags';
import { listTranscripts, OrangeError, type AgentRole } from '@orange/core';
import { OrangeCommand } from '../../command/base-command.js';
import { projectFlag, taskIdArg } from '../../command/flags.js';
import { resolveTaskRef } from '../../command/locate.js';
import { readTranscript } from '../../output/transcript-follow.js';
import { TranscriptText } from '../../output/transcript-text.js';

export default class TaskOutput extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = "Print an agent's terminal output (its transcript); --follow keeps printing while it runs.";
  static override description = [
    "By default the latest spawn's transcript (of --role, if given). Escape sequences are removed so",
    'the text is safe on a terminal; --raw writes the stream as recorded, only into a pipe or a file.',
    '--follow ends when that agent exits (or on Ctrl-C).',
  ].join(' ');
  static override examples = [
    '<%= config.bin %> task output V1StGXR8Z5jdHi6BmyT4a',
    '<%= config.bin %> task output V1StGXR8Z5jdHi6BmyT4a --role reviewer --follow',
    '<%= config.bin %> task output V1StGXR8Z5jdHi6BmyT4a --raw | less -R',
  ];
  static override args = { id: taskIdArg };
  static override flags = {
    project: projectFlag,
    role: Flags.string({ description: "Whose output: the worker's or the reviewer's.", options: ['worker', 'reviewer'] }),
    spawn: Flags.string({ description: 'A given spawn (ids are listed by orange task show).' }),
    follow: Flags.boolean({ char: 'f', description: 'Keep printing new output until the agent exits.', default: false }),
    raw: Flags.boolean({ description: 'Write the recorded bytes unchanged (not to a terminal).', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TaskOutput);
    if (flags.raw && process.stdout.isTTY) {
      throw new OrangeError('E_USAGE', '--raw writes the terminal stream as recorded, escape sequences included; pipe it (| less -R) or redirect it to a file');
    }
    if (this.json && flags.follow) throw new OrangeError('E_USAGE', '--follow prints a stream; it cannot be combined with --json');
    const orange = await this.orange();
    const ref = await resolveTaskRef(orange, args.id, flags.project);
    const task = await orange.store.read(ref.project, ref.id);
    const all = await listTranscripts(orange.paths, ref.project, ref.id);
    const role = flags.role as AgentRole | undefined;
    const candidates = all.filter((t) => (role === undefined || t.role === role) && (flags.spawn === undefined || t.spawn === flags.spawn));
    const transcript = candidates.at(-1);
    if (transcript === undefined) {
      const what = flags.spawn !== undefined ? `no transcript of spawn ${flags.spawn}` : `no ${role ?? 'agent'} transcript`;
      throw new OrangeError('E_INVALID_INPUT', `task ${ref.id} has ${what}${all.length ? ` (spawns: ${all.map((t) => `${t.role} ${t.spawn}`).join(', ')})` : ' (no agent has run with transcripts on)'}`);
    }
    const field = transcript.role === 'worker' ? 'worker_spawn' : 'reviewer_spawn';
    const running = async () => {
      const now = await orange.store.read(ref.project, ref.id).catch(() => null);
      return now !== null && now.meta[field] === transcript.spawn;
    };
    const live = task.meta[field] === transcript.spawn;
    if (this.json) {
      const chunks: Buffer[] = [];
      await readTranscript({ file: transcript.file, rotated: `${transcript.file}.1`, write: (c) => chunks.push(c) }, null);
      const text = new TranscriptText();
      this.logJson({ task: task.meta, transcript, running: live, text: text.push(Buffer.concat(chunks)) + text.end() });
      return;
    }
    const text = new TranscriptText();
    const write = flags.raw ? (chunk: Buffer) => void process.stdout.write(chunk) : (chunk: Buffer) => void process.stdout.write(text.push(chunk));
    const follow = flags.follow && live ? { watch: [orange.paths.taskLogsDir(ref.project, ref.id), orange.paths.taskDir(ref.project, ref.id)], running } : null;
    await readTranscript({ file: transcript.file, rotated: `${transcript.file}.1`, write }, follow);
    if (!flags.raw) process.stdout.write(text.end());
  }
}
