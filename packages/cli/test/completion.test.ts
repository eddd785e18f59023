import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TmuxServer, waitFor } from '@orange/test-support';
import { TaskStore } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, CliSandbox } from './cli-sandbox.js';

let box: CliSandbox;
let demoTask: string;
let demoStatus: string;
let webTask: string;

beforeAll(async () => {
  box = await CliSandbox.create();
  await box.addProject('web');
  ({ id: demoTask, status: demoStatus } = await box.createTask(['fix-build', 'Fix the build']));
  webTask = (await box.createTask(['--project', 'web', 'new-page', 'Add a page'])).id;
}, 60_000);
afterAll(() => box.cleanup());

describe('orange completion --list (what the scripts call on Tab)', () => {
  it('prints the task ids from the store, one a line, of every project or of --project', async () => {
    const all = await box.orange(['completion', '--list', 'tasks']);
    expect(all.code).toBe(0);
    expect(all.stdout.split('\n').filter(Boolean).sort()).toEqual([demoTask, webTask].sort());
    // (execa drops the last newline.)
    expect((await box.orange(['completion', '--list', 'tasks', '--project', 'web'])).stdout).toBe(webTask);
  });

  it('describes each task for zsh and fish with --describe: id, a tab, status and summary', async () => {
    const out = await box.orange(['completion', '--list', 'tasks', '--project', 'demo', '--describe']);
    expect(out.stdout).toBe(`${demoTask}\t${demoStatus}: Fix the build`);
  });

  it('prints the project names', async () => {
    const out = await box.orange(['completion', '--list', 'projects']);
    expect(out.stdout.split('\n').filter(Boolean).sort()).toEqual(['demo', 'web']);
  });

  it('prints nothing, and succeeds, when the store cannot say', async () => {
    for (const args of [['--list', 'tasks', '--project', 'nope'], ['--list', 'tasks', '--project', '../x']]) {
      expect(await box.orange(['completion', ...args])).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    const home = join(box.dir, 'not-a-home');
    writeFileSync(home, 'a file, not a folder');
    for (const list of ['tasks', 'projects']) {
      expect(await box.orange(['completion', '--list', list], { env: { ORANGE_HOME: home } })).toEqual({ code: 0, stdout: '', stderr: '' });
    }
  });
});

describe('orange completion SHELL', () => {
  it('prints the script of the shell named, or of $SHELL', async () => {
    expect((await box.orange(['completion', 'bash'])).stdout).toContain('complete -F _orange orange');
    expect((await box.orange(['completion', 'zsh'])).stdout).toMatch(/^#compdef orange\n/);
    expect((await box.orange(['completion', 'fish'])).stdout).toContain("complete -c orange -f -a '(__orange_complete)'");
    expect((await box.orange(['completion'], { env: { SHELL: '/usr/bin/fish' } })).stdout).toContain('complete -c orange');
    const json = await box.json<{ shell: string; script: string }>(['completion', 'zsh']);
    expect(json.shell).toBe('zsh');
    expect(json.script).toMatch(/^#compdef orange\n/);
  });

  it('asks which shell when $SHELL names none it knows', async () => {
    const out = await box.jsonError(['completion'], { env: { SHELL: '/bin/sh' } });
    expect(out).toMatchObject({ code: 'E_USAGE', error: 'say which shell: orange completion bash|zsh|fish', exit: 2 });
  });
});

const PROMPT = 'cmpl$ ';

/** The shell's command line in the pane, and how it loads orange's completion (`dir`: a folder of the sandbox). */
const SHELLS = {
  bash: {
    command: ['bash', '--norc', '--noprofile'],
    load: () => 'source <(orange completion bash)',
  },
  // As docs/cli.md says: the script saved as _orange in a folder on $fpath, then compinit.
  zsh: {
    command: ['zsh', '-f'],
    load: (dir: string) => `mkdir -p ${dir}/zfunc && orange completion zsh > ${dir}/zfunc/_orange && fpath=(${dir}/zfunc $fpath) && autoload -U compinit && compinit -u -D`,
  },
} as const;

/**
 * An interactive shell in a tmux pane of its own server, where `orange` is the built CLI (a
 * wrapper on PATH) and ORANGE_HOME is the sandbox's: typed into with send-keys, read with capture-pane.
 */
class Pane {
  private readonly server: TmuxServer;

  constructor(
    bin: string,
    private readonly shell: keyof typeof SHELLS,
  ) {
    this.server = TmuxServer.fresh('completion', { ...box.env, PATH: `${bin}:${box.env.PATH ?? ''}` });
  }

  tmux(...args: string[]): Promise<string> {
    return this.server.out(...args);
  }

  async open(): Promise<void> {
    const { command, load } = SHELLS[this.shell];
    await this.tmux('new-session', '-d', '-s', 'complete', '-x', '200', '-y', '50', '-c', box.repo, ...command);
    await this.type(`PS1='${PROMPT}'`);
    await this.type(`${load(box.dir)} && echo LOADED-$((40 + 2))`);
    await this.screenShows('LOADED-42');
  }

  /** Types `text` literally, without Enter. */
  async keys(text: string): Promise<void> {
    await this.tmux('send-keys', '-t', 'complete', '-l', text);
  }

  async type(line: string): Promise<void> {
    await this.keys(line);
    await this.press('Enter');
  }

  /** Presses keys by tmux's names (`Tab`, `C-u`). */
  async press(...keys: string[]): Promise<void> {
    for (const key of keys) await this.tmux('send-keys', '-t', 'complete', key);
  }

  screen(): Promise<string> {
    return this.tmux('capture-pane', '-p', '-t', 'complete');
  }

  /**
   * The line being edited, after the prompt and up to the cursor: capture-pane drops trailing
   * spaces, and the space Tab adds after a whole word is what shows it completed one.
   */
  async line(): Promise<string> {
    const [x = 0, y = 0] = (await this.tmux('display-message', '-p', '-t', 'complete', '#{cursor_x} #{cursor_y}')).trim().split(' ').map(Number);
    const row = ((await this.screen()).split('\n')[y] ?? '').padEnd(x).slice(0, x);
    return row.startsWith(PROMPT) ? row.slice(PROMPT.length) : `(not at the prompt) ${row}`;
  }

  /** Waits (to a deadline, polling) until `check` holds of the screen; a timeout shows the screen. */
  async until(what: string, check: (screen: string, line: string) => boolean, timeoutMs = 20_000): Promise<void> {
    // Under the tests' 30 s, so that a wait that fails says why (the screen, and what the store offers).
    let screen = '';
    await waitFor(
      `the pane to show ${what}`,
      async () => {
        screen = await this.screen();
        return check(screen, await this.line());
      },
      { timeoutMs, explain: async () => `it shows:\n${screen.replace(/\n+$/, '')}\n${await storeOffers()}` },
    );
  }

  screenShows(text: string): Promise<void> {
    return this.until(JSON.stringify(text), (screen) => screen.includes(text));
  }

  lineIs(text: string): Promise<void> {
    return this.until(`the line ${JSON.stringify(text)}`, (_, line) => line === text);
  }

  /** An empty line to type on. */
  async clear(): Promise<void> {
    await this.press('C-u');
    await this.lineIs('');
  }

  async close(): Promise<void> {
    await this.server.kill();
  }
}

/** The characters two words start with alike. */
function sharedStart(a: string, b: string): string {
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return a.slice(0, n);
}

/** What Tab would offer now, and whether the store reads: a completion that cannot read it offers nothing. */
async function storeOffers(): Promise<string> {
  const listed = await box.orange(['completion', '--list', 'tasks']);
  const store = await new TaskStore(box.paths).list().then(
    ({ tasks, unreadable }) => `the store lists ${tasks.map((t) => t.meta.id).join(' ') || 'no task'}${unreadable.length ? `, cannot read ${JSON.stringify(unreadable)}` : ''}`,
    (error: unknown) => `the store cannot be listed: ${String(error)}`,
  );
  return `orange completion --list tasks: exit ${listed.code}, stdout ${JSON.stringify(listed.stdout)}, stderr ${JSON.stringify(listed.stderr)}; ${store}`;
}

/** A pane of `shell` with orange's completion loaded, for the tests of one describe block. */
function paneFor(shell: keyof typeof SHELLS): () => Pane {
  let pane: Pane | undefined;
  beforeAll(async () => {
    const bin = join(box.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'orange'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`);
    chmodSync(join(bin, 'orange'), 0o755);
    pane = new Pane(bin, shell);
    await pane.open();
  }, 60_000);
  afterAll(() => pane?.close());
  return () => pane as Pane;
}

describe('completion in bash, in a real terminal', () => {
  const pane = paneFor('bash');

  it('completes a topic, then its command', async () => {
    await pane().clear();
    await pane().keys('orange ta');
    await pane().lineIs('orange ta');
    await pane().press('Tab');
    await pane().lineIs('orange task ');
    await pane().keys('sh');
    await pane().press('Tab');
    await pane().lineIs('orange task show ');
  });

  it('lists the task ids on Tab Tab, and completes the one of the project given', async () => {
    await pane().clear();
    await pane().keys('orange task show ');
    await pane().lineIs('orange task show ');
    // Random ids share their first characters one time in 62: Tab then inserts them, and only the
    // Tab Tab after that lists.
    const shared = sharedStart(demoTask, webTask);
    if (shared) {
      await pane().press('Tab');
      await pane().lineIs(`orange task show ${shared}`);
    }
    await pane().press('Tab', 'Tab');
    await pane().until('both task ids listed', (screen) => screen.includes(demoTask) && screen.includes(webTask));
    await pane().clear();
    await pane().keys('orange task show -p web ');
    await pane().lineIs('orange task show -p web ');
    await pane().press('Tab');
    await pane().lineIs(`orange task show -p web ${webTask} `);
  });

  it('completes a flag, and a project name as its value', async () => {
    await pane().clear();
    await pane().keys('orange task list --pro');
    await pane().lineIs('orange task list --pro');
    await pane().press('Tab');
    await pane().lineIs('orange task list --project ');
    await pane().keys('w');
    await pane().press('Tab');
    await pane().lineIs('orange task list --project web ');
    // The completed line runs.
    await pane().press('Enter');
    await pane().screenShows(webTask);
  });
});

// In CI zsh must be there (.ci/run installs it): a missing shell fails there instead of skipping.
describe.skipIf(spawnSync('zsh', ['-fc', 'exit 0']).status !== 0 && !process.env.CI)('completion in zsh, autoloaded from $fpath, in a real terminal', () => {
  const pane = paneFor('zsh');

  it('completes a topic and its command, task ids with their summaries, and flags with project names', async () => {
    await pane().clear();
    await pane().keys('orange ta');
    await pane().lineIs('orange ta');
    await pane().press('Tab');
    await pane().lineIs('orange task ');
    await pane().keys('sh');
    await pane().press('Tab');
    await pane().lineIs('orange task show ');
    // As in bash: ids that share their first characters get them inserted by one Tab, listed by the next.
    const shared = sharedStart(demoTask, webTask);
    if (shared) {
      await pane().press('Tab');
      await pane().lineIs(`orange task show ${shared}`);
    }
    await pane().press('Tab');
    await pane().until('both task ids listed with their summaries', (screen) => screen.includes(`${demoTask}  -- `) && screen.includes('Add a page'));
    await pane().clear();
    await pane().keys('orange task show -p web ');
    await pane().lineIs('orange task show -p web ');
    await pane().press('Tab');
    await pane().lineIs(`orange task show -p web ${webTask} `);
    await pane().clear();
    await pane().keys('orange task list --pro');
    await pane().lineIs('orange task list --pro');
    await pane().press('Tab');
    // zsh offers the value in the same word: --project=.
    await pane().lineIs('orange task list --project=');
    await pane().keys('w');
    await pane().press('Tab');
    await pane().lineIs('orange task list --project=web ');
  });
});
