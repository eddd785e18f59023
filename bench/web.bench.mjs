// Web page figures (`orange web`), in Debian's Chromium driven by playwright-core: the time from a
// status written by the CLI (`orange task update --status`, the mtime of the task's state.json, so
// the CLI's own start-up is not counted) to that status on the open board, median, p90 and worst of
// 25 changes, over 10 and 1,000 tasks; and the time from opening the printed URL to the first full
// board. The page stamps the moment it drew the status (a MutationObserver in the page, Date.now):
// browser and bench share the machine's clock. The bench holds the monitor lease as an
// `orange monitor` would, so no pass of the server's own moves the probe.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OrangePaths, TaskStore, newTaskId, newTaskMeta, processStart } from '@orange/core';
import { root, median, pct, printTable, withTempDir, runProgram, seedTasks } from './lib.mjs';

const CLI = join(root, 'packages/cli/bin/run.cjs');
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];
const CHANGES = 25;
const GOAL_LATENCY_MS = 300;



/** Starts `orange web` and resolves with its URL and process. */
function startWeb(env, cwd) {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [CLI, 'web', '--port', '0'], { env, cwd });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve({ url: out.split('\n')[0].trim(), child });
    });
    child.on('exit', (code) => reject(new Error(`web bench: orange web exited ${code}: ${out}`)));
  });
}

export default async function bench() {
  if (!existsSync(CHROMIUM)) {
    console.log(`skipped: no ${CHROMIUM} (apt-get install chromium)`);
    return;
  }
  const { chromium } = await import('playwright-core');
  const rows = [];
  for (const count of [10, 1000]) {
    await withTempDir(`web-${count}`, async (dir) => {
      const paths = new OrangePaths(join(dir, 'home'));
      await seedTasks(paths, 'bench', count);
      await writeFile(paths.projectsFile, JSON.stringify([{ name: 'bench', path: dir, default_branch: 'main', pool_size: 2 }]));
      await mkdir(join(paths.home, 'run'), { recursive: true });
      const holder = { pid: process.pid, start: (await processStart(process.pid)) ?? '', kind: 'monitor', project: null, since: new Date().toISOString() };
      await writeFile(paths.monitorLeaseFile, JSON.stringify({ holders: [holder] }));
      const store = new TaskStore(paths);
      const id = newTaskId();
      await store.create({ meta: newTaskMeta({ id, project: 'bench', branch: 'bench/latency', status: 'clarification', summary: 'latency probe' }), body: '' });
      const env = { ...process.env, ORANGE_HOME: paths.home, ORANGE_TMUX_SOCKET: `orange-bench-web-${process.pid}` };
      const { url, child } = await startWeb(env, dir);
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
      try {
        const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
        const opened = Date.now();
        await page.goto(url);
        await page.getByTestId(`row-${id}`).waitFor({ timeout: 60_000 });
        const firstBoard = Date.now() - opened;
        const latencies = [];
        let status = 'clarification';
        for (let i = 0; i < CHANGES; i++) {
          const next = status === 'clarification' ? 'planning' : 'clarification';
          // Armed before the write: the page stamps the moment its row shows the new status.
          const shown = page.evaluate(
            ([rowId, wanted]) =>
              new Promise((resolve) => {
                const check = () => document.querySelector(`[data-testid="row-${rowId}"]`)?.getAttribute('data-status') === wanted;
                if (check()) return resolve(Date.now());
                const observer = new MutationObserver(() => {
                  if (!check()) return;
                  observer.disconnect();
                  resolve(Date.now());
                });
                observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
              }),
            [id, next],
          );
          const updated = await runProgram(process.execPath, [CLI, 'task', 'update', id, '--status', next], { env, cwd: dir });
          if (updated.code !== 0) throw new Error(`web bench: task update failed: ${updated.stderr}`);
          const written = (await stat(paths.taskStateFile('bench', id))).mtimeMs;
          latencies.push(Math.max(0, (await shown) - written));
          status = next;
        }
        const what = `${count.toLocaleString('en')} tasks`;
        const p50 = median(latencies);
        rows.push({ figure: `status written by the CLI → on the open page, ${what} (median of ${CHANGES})`, value: `${p50.toFixed(0)} ms`, goal: `≤ ${GOAL_LATENCY_MS} ms`, met: p50 <= GOAL_LATENCY_MS });
        rows.push({ figure: `  p90 / worst`, value: `${pct(latencies, 0.9).toFixed(0)} / ${Math.max(...latencies).toFixed(0)} ms` });
        rows.push({ figure: `printed URL opened → first full board, ${what}`, value: `${firstBoard} ms` });
      } finally {
        await browser.close();
        child.kill('SIGTERM');
        await new Promise((resolve) => child.on('exit', resolve));
      }
    });
  }
  printTable(rows);
}
