/**
 * Runs `docker run …` for one agent and removes its container when the agent is stopped.
 *
 * Why a process of its own: `docker run -it` does not pass signals on (its terminal is raw), and
 * a docker client that dies — tmux hangs the window up on `kill_session`, the pipeline's timeout
 * ends a headless run — leaves its container running. This runner stays between the agent wrapper
 * and the client: when it is told to stop, it removes the container by name, then exits as the
 * signal says; otherwise it exits with the client's (the container's) exit code.
 *
 * Usage: container-runner --name <container> --docker <cli> -- <docker run arguments…>
 */
import { spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';

function parse(argv: readonly string[]): { name: string; cli: string; args: string[] } {
  let name = '';
  let cli = 'docker';
  let i = 0;
  for (; i < argv.length && argv[i] !== '--'; i += 2) {
    if (argv[i] === '--name') name = argv[i + 1] ?? '';
    else if (argv[i] === '--docker') cli = argv[i + 1] ?? cli;
  }
  return { name, cli, args: argv.slice(i + 1) };
}

const { name, cli, args } = parse(process.argv.slice(2));
if (!name || args.length === 0) {
  process.stderr.write('container-runner: usage: --name <container> --docker <cli> -- <docker arguments>\n');
  process.exit(2);
}

let stopping = false;
const child = spawn(cli, args, { stdio: 'inherit' });
child.on('error', (error) => {
  process.stderr.write(`orange: docker: cannot run ${cli}: ${error.message}\n`);
  process.exit(127);
});

for (const signal of ['SIGHUP', 'SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    // Removed before this process goes: nothing else would (`--rm` applies only when the container exits).
    spawnSync(cli, ['rm', '--force', name], { stdio: 'ignore', timeout: 15_000 });
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    process.exit(128 + (constants.signals[signal] ?? 0));
  });
}

child.on('exit', (code, signal) => {
  if (stopping) return;
  process.exit(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
});
