import { execa, type ResultPromise } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { standInGh } from '@orange/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { pipelineSandbox } from './pipeline-sandbox.js';
import { CLI, pluginUrl, Sandbox } from './sandbox.js';
import { dash, Terminal } from './terminal.js';

/** Who is in the monitor lease (`orange monitor`s and dashboards). */
async function leaseHolders(box: Sandbox): Promise<Array<{ pid: number; kind: string }>> {
  return (JSON.parse(await readFile(box.paths.monitorLeaseFile, 'utf8')) as { holders: Array<{ pid: number; kind: string }> }).holders;
}

/** The passes a process logged as the dashboard's monitor duty. */
async function dashboardPasses(box: Sandbox, pid: number | undefined): Promise<unknown[]> {
  const passes = await box.orange(['log', '--component', 'dashboard', '--grep', 'monitor pass', '--json']);
  return (JSON.parse(passes.stdout) as { records: Array<{ pid?: number; msg: string }> }).records.filter((r) => r.pid === pid && r.msg === 'monitor pass');
}

let box: Sandbox | undefined;
let term: Terminal | undefined;
let monitor: ResultPromise | undefined;
afterEach(async () => {
  monitor?.kill('SIGTERM');
  await monitor?.catch(() => undefined);
  monitor = undefined;
  await term?.close();
  term = undefined;
  await box?.cleanup();
  box = undefined;
});


describe('orange dash in a real terminal', () => {
  it('keeps the selection on the task it shows while another task changes from another shell and sorts above it', async () => {
    box = await Sandbox.create({ poolSize: 2 });
    term = new Terminal(box);
    await term.open();
    const first = await box.createTask(['chore/first', 'the first task', '--no-spawn']);
    const picked = await box.createTask(['chore/picked', 'the picked task', '--no-spawn']);
    // 80 columns: no SUMMARY column, so the selected row shows its summary under it.
    await term.tmux('resize-window', '-t', 'term', '-x', '80', '-y', '30');
    await term.type(dash());
    // The newest first: the picked task is selected on open (its summary under its row).
    await term.screenShows('the picked task');
    // Another shell changes the other task: it sorts first now, and nothing else moves.
    const updated = await box.orange(['task', 'update', first, '--summary', 'changed from outside']);
    expect(updated.code, updated.stderr).toBe(0);
    await term.screenShows(/chore\/first[\s\S]*chore\/picked/);
    const screen = await term.screen();
    expect(screen, screen).toMatch(/chore\/picked[^\n]*\n\s+the picked task/);
    expect(screen).not.toContain('changed from outside');
    // Enter acts on the task shown selected: the picked one starts, the other stays pending.
    await term.press('Enter');
    await box.waitFor('the picked task to start', async () => (await box!.task(picked)).meta.status !== 'pending', 15_000);
    expect((await box.task(first)).meta.status).toBe('pending');
    await term.press('q');
  }, 60_000);

  it('shows tasks live as agents move them, creates one with c, cancels one with x after confirmation, and q gives the terminal back', async () => {
    box = await Sandbox.create({ poolSize: 2 });
    term = new Terminal(box);
    await term.open();
    const waiting = await box.createTask(['chore/waiting', 'waits for its turn', '--no-spawn']);
    await term.type(dash());
    await term.screenShows('chore/waiting');
    expect(await term.rowOf('chore/waiting')).toMatch(/○.*pending/);

    // c: the form; the new task starts and its agent moves it through the workflow, live.
    await term.press('c');
    await term.screenShows('New task');
    await term.tmux('send-keys', '-t', 'term', '-l', 'feature/from-dash');
    await term.screenShows('feature/from-dash▏');
    await term.press('Tab');
    await term.tmux('send-keys', '-t', 'term', '-l', 'made in the dashboard');
    await term.screenShows('summary  made in the dashboard▏');
    await term.press('Enter');
    await term.screenShows(/created task \w{21} on feature\/from-dash/);
    await term.screenShows(/feature\/from-dash.*\s(planning|working|agent-review)/);
    await term.screenShows(/feature\/from-dash.*\sreviewing/, 60_000);
    const created = (await box.orange(['task', 'list', '--json'])).stdout;
    const made = (JSON.parse(created) as { tasks: Array<{ id: string; branch: string; status: string }> }).tasks.find((t) => t.branch === 'feature/from-dash');
    expect(made?.status).toBe('reviewing');

    // x on the pending task (found with / search): refused until confirmed.
    await term.press('/');
    await term.screenShows('(Enter keep, Esc clear)');
    await term.tmux('send-keys', '-t', 'term', '-l', 'waiting');
    await term.screenShows('/waiting▏');
    await term.press('Enter');
    await term.screenShows('showing all /waiting');
    expect(await term.rowOf('feature/from-dash')).toBe('');
    await term.press('x');
    await term.screenShows(`Cancel task ${waiting}`);
    await term.press('n');
    await term.screenShows('not confirmed; nothing was changed');
    expect((await box.task(waiting)).meta.status).toBe('pending');
    await term.press('x');
    await term.screenShows('[y/N]');
    await term.press('y');
    await term.screenShows(`task ${waiting}: pending → cancelled`);
    await term.screenShows(/chore\/waiting.*\scancelled/);
    expect((await box.task(waiting)).meta.status).toBe('cancelled');

    // With no orange monitor running, the dashboard polls (the passes the next test must not see).
    expect(await term.screen()).toContain('monitor: here');
    const own = (await leaseHolders(box)).find((h) => h.kind === 'dashboard')?.pid;
    expect(own).toBeDefined();
    expect((await dashboardPasses(box, own)).length).toBeGreaterThan(0);

    // q: the shell's screen is back as it was.
    await term.press('q');
    const after = await term.screenShows('BEFORE-DASH');
    expect(after).not.toContain('j/k move');
  }, 120_000);

  it('D shows the whole diff of a task with a two-file change, n goes to the second file, Esc comes back', async () => {
    box = await Sandbox.create();
    term = new Terminal(box);
    await term.open();
    const id = await box.createTask(['feature/two-files', 'a change in two files'], 'agent.reviews: PASS\n');
    await box.waitForStatus(id, 'reviewing', 60_000);
    // The agent committed its change; a second file changes in the worktree, not committed yet.
    const worktree = (await box.task(id)).meta.workspace as string;
    await writeFile(join(worktree, 'second-file.txt'), 'a line the diff must show\n');
    await box.git(worktree, 'add', 'second-file.txt');
    await term.type(dash());
    await term.screenShows(/feature\/two-files.*\sreviewing/);
    await term.screenShows('D diff');
    await term.press('D');
    await term.screenShows(/diff of \w{21} \(feature\/two-files\) — file 1 of 2/);
    const first = await term.screen();
    expect(first, first).toMatch(/^diff --git a\/\S+ b\/\S+$/m);
    await term.press('n');
    await term.screenShows('file 2 of 2');
    await term.screenShows('diff --git a/second-file.txt b/second-file.txt');
    await term.screenShows('+a line the diff must show');
    await term.press('Escape');
    await term.screenShows('D diff');
    await term.press('q');
  }, 120_000);

  it('attaches with Enter and comes back on detach, merges a reviewed task into origin with m, and shows a refusal', async () => {
    box = await Sandbox.create();
    term = new Terminal(box);
    await term.open();
    const id = await box.createTask(['feature/merge-me', 'merge me from the dashboard'], 'agent.reviews: PASS\n');
    await box.waitForStatus(id, 'reviewing', 60_000);
    await term.type(dash());
    await term.screenShows(/●.*feature\/merge-me.*\sreviewing/);

    // Enter: Orange's tmux server is not the one this pane runs in, so the agent's session is
    // attached inside the pane, and the footer says how a person detaches from that nested client.
    await term.screenShows('⏎ attach (C-b C-b d back)');
    await term.press('Enter');
    // The attached client's status line (the dashboard's own preview shows the agent's lines too).
    await term.screenShows(/^\[demo\/\w+:worker/m);
    // send-keys types into the pane itself, past the outer tmux: one prefix reaches the nested client.
    await term.press('C-b', 'd');
    await term.screenShows(`detached from ${id}`);
    await term.screenShows('feature/merge-me');

    // m: confirmed, merged into the bare origin, done.
    await term.press('m');
    await term.screenShows(`Merge task ${id}`);
    await term.press('y');
    await term.screenShows(/feature\/merge-me.*\sdone/, 30_000);
    // The merge's own sentence, before the next key: it would overwrite a refusal shown earlier.
    await term.screenShows(`task ${id}: reviewing → done`);
    expect(await box.git(box.origin, 'log', '--format=%s', 'main')).toContain(`implement the task for task ${id}`);

    // A refused action: its one-line reason in the status bar, and the dashboard still runs.
    await term.press('r');
    await term.screenShows(`task ${id} is done; changes are requested on a task in reviewing`);
    await term.press('x');
    await term.screenShows(`done → cancelled refused`);
    await term.press('q');
    await term.screenShows('BEFORE-DASH');
  }, 120_000);

  it('p opens a pull request, R applies its merge as the monitor would, and each pass of the dashboard refreshes the PR column', async () => {
    box = await Sandbox.create();
    const gh = await standInGh(box.dir, box.env.PATH ?? '');
    term = new Terminal(box);
    await term.open();
    /** A task in reviewing on a branch with one commit, as a human creates one for review. */
    const reviewing = async (branch: string) => {
      await box!.git(box!.repo, 'checkout', '-q', '-b', branch);
      await writeFile(join(box!.repo, `${branch.replace('/', '-')}.md`), `${branch}\n`);
      await box!.git(box!.repo, 'add', '.');
      await box!.git(box!.repo, 'commit', '-q', '-m', `work on ${branch}`);
      await box!.git(box!.repo, 'checkout', '-q', 'main');
      return box!.createTask([branch, `publish ${branch}`, '--status', 'reviewing']);
    };

    // A poll interval far beyond the test: only R can apply the merge.
    const id = await reviewing('feature/pr-by-r');
    await term.type(`PATH=${gh.binDir}:$PATH ${dash('', 600_000)}`);
    await term.screenShows(/feature\/pr-by-r.*\sreviewing/);
    await gh.nextPullRequest(21);
    await gh.setPullRequestState(21, 'OPEN');
    await term.press('p');
    await term.screenShows('pull request created: https://github.com/example/app/pull/21');
    await term.screenShows(/feature\/pr-by-r.*\sreviewing\s+#21 open/);
    await gh.setPullRequestState(21, 'MERGED');
    await term.press('R');
    await term.screenShows(`pull request of ${id} merged: task ${id} → done`);
    await term.screenShows(/feature\/pr-by-r.*\sdone\s+#21 merged/);
    const history = await box.history(id);
    expect(history.filter((e) => e.type === 'status.changed').at(-1)).toMatchObject({ from: 'reviewing', to: 'done', cause: 'auto', reason: 'pull request merged' });
    expect(history.filter((e) => e.type === 'task.merged')).toEqual([expect.objectContaining({ via: 'pull request' })]);
    await term.press('q');
    await term.screenShows('BEFORE-DASH');
    await term.shellIsBack();

    // The usual interval: the dashboard's own pass applies a close, and the PR column follows it.
    const closing = await reviewing('feature/pr-closed');
    await gh.nextPullRequest(22);
    await gh.setPullRequestState(22, 'OPEN');
    expect((await box.orange(['task', 'create-pr', closing], { env: gh.env })).code).toBe(0);
    await term.type(`PATH=${gh.binDir}:$PATH ${dash()}`);
    await term.screenShows(/feature\/pr-closed.*\sreviewing\s+#22 open/);
    await gh.setPullRequestState(22, 'CLOSED');
    await term.screenShows(/feature\/pr-closed.*\scancelled\s+#22 closed/);
    await term.press('q');
    await term.screenShows('BEFORE-DASH');
  }, 120_000);

  it('shows the questions of a pipeline task awaiting clarification; a refuses an empty answer and sends a typed one, which classifies it again', async () => {
    box = await pipelineSandbox({
      classify: [
        { intent: 'bugfix', confidence: 0.3, questions: ['Which form crashes, login or sign-up?', 'Since which release?'] },
        { intent: 'bugfix', confidence: 0.9 },
      ],
    });
    const id = await box.createTask(['fix/unclear', 'it is broken']);
    await box.waitForStatus(id, 'awaiting_clarification', 60_000);
    term = new Terminal(box);
    await term.open();
    await term.type(dash());
    // The detail pane: the classifier's questions, from TASK.md, where no agent window is.
    await term.screenShows('## Questions');
    await term.screenShows('Which form crashes, login or sign-up?');
    await term.screenShows('Since which release?');
    await term.screenShows('a answer');

    // An empty answer: the clarify call's refusal, and nothing moves.
    await term.press('a');
    await term.screenShows('Answer to ## Questions');
    await term.press('Enter');
    await term.screenShows('the clarification is empty');
    expect((await box.task(id)).meta.status).toBe('awaiting_clarification');

    await term.press('a');
    await term.screenShows('Answer to ## Questions');
    await term.tmux('send-keys', '-t', 'term', '-l', 'the login form, since 2.3');
    await term.screenShows('the login form, since 2.3▏');
    await term.press('Enter');
    await term.screenShows(`task ${id}: awaiting_clarification → classifying`);
    const clarified = (await box.history(id)).filter((e) => e.type === 'status.changed').find((e) => e.from === 'awaiting_clarification');
    expect(clarified).toMatchObject({ to: 'classifying', cause: 'request' });
    expect((await box.task(id)).body).toContain('Clarification: the login form, since 2.3');
    // Classified again with the answer, confidently this time: the task runs to its end.
    await box.waitForStatus(id, 'completed', 60_000);
    await term.screenShows(/fix\/unclear.*\scompleted/);
    await term.press('q');
    await term.screenShows('BEFORE-DASH');
  }, 120_000);

  it('leaves the poll to a running orange monitor, which handles an agent killed from outside once; the dashboard runs no pass', async () => {
    box = await Sandbox.create();
    term = new Terminal(box);
    await term.open();
    monitor = execa(process.execPath, [CLI, 'monitor', '--interval', '300', '--json'], { cwd: box.repo, env: box.env, extendEnv: false, reject: false, forceKillAfterDelay: 30_000 });
    const reports: Array<{ exits: Array<{ task: string; role: string; decision: string }> }> = [];
    let partial = '';
    monitor.stdout?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) reports.push(JSON.parse(line));
    });
    const holders = () => leaseHolders(box!);
    await box.waitFor('the monitor to enter the lease', async () => (await holders()).some((h) => h.kind === 'monitor' && h.pid === monitor?.pid), 20_000);
    await term.type(dash());
    await term.screenShows(`monitor: pid ${monitor.pid}`);
    // The dashboard stands by in the lease, behind the monitor.
    await box.waitFor('the dashboard to enter the lease', async () => (await holders()).some((h) => h.kind === 'dashboard'), 10_000);
    const dashboardPid = (await holders()).find((h) => h.kind === 'dashboard')?.pid;

    const id = await box.createTask(['feature/killed', 'killed from outside'], 'agent.pace: 60000\n');
    const task = await box.waitFor('the worker to start', async () => (await box!.task(id)).meta.worker_spawn !== null, 15_000).then(() => box!.task(id));
    await term.screenShows(/●.*feature\/killed/);
    await box.killWithoutReport(`demo/${task.meta.id}`, 'worker');
    await box.waitFor('the poll to handle the dead agent', async () => (await box!.history(id)).some((e) => e.type === 'agent.crashed'), 30_000);
    await term.screenShows(/✗.*feature\/killed/);
    // Three more passes of the monitor, with the dashboard open all along: still acted on once.
    const seen = reports.length;
    await box.waitFor('three more monitor passes', async () => reports.length >= seen + 3, 30_000);
    const crashes = (await box.history(id)).filter((e) => e.type === 'agent.crashed');
    expect(crashes, JSON.stringify(await box.history(id), null, 1)).toHaveLength(1);
    // It was the monitor that handled it, and the dashboard never ran a pass of its own.
    expect(reports.flatMap((r) => r.exits)).toEqual([expect.objectContaining({ task: id, role: 'worker', decision: 'crash' })]);
    expect(await dashboardPasses(box, dashboardPid)).toEqual([]);
    await term.press('q');
    await term.screenShows('BEFORE-DASH');
  }, 120_000);
});

