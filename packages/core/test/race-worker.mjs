// A separate orange process for test/concurrency.test.ts: it loads the BUILT core (dist), as the
// CLI does, so the races are between real processes with their own locks and file handles.
//
//   node race-worker.mjs transition <home> <project> <id> <to>   waits for "go" on stdin first
//   node race-worker.mjs steps <home> <json [{project,id,from,to}]>
//   node race-worker.mjs write-loop <home> <project> <id> <bytes>  writes TASK.md until killed
//   node race-worker.mjs hold-lock <home> <project> <id>           takes the task lock, holds it until killed
//
// stdout: `{"ready":true}` once set up, then one JSON result line. Exit 0 = done,
// 1 = refused (an OrangeError), 2 = anything else.
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

const core = await import(new URL('../dist/index.js', import.meta.url).href);
const { Orange, OrangePaths, isOrangeError, noopActions, serializeTask, writeFileAtomic } = core;

/** The body of write-loop version `n`: the parent rebuilds it to prove a read saw one whole version. */
function versionBody(n, bytes) {
  const unit = `v${n} `;
  return `## Context\n\n${unit.repeat(Math.ceil(bytes / unit.length))}\n`;
}

function print(value) {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function waitForGo() {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === 'go') break;
  }
  lines.close();
}

const [mode, home, ...args] = process.argv.slice(2);
const orange = await Orange.create({ plugins: [noopActions()] }, { paths: new OrangePaths(home) });

try {
  if (mode === 'transition') {
    const [project, id, to] = args;
    print({ ready: true });
    await waitForGo();
    const result = await orange.engine.transition({ project, id }, to);
    print({ ok: true, from: result.from, to: result.to, changed: result.changed });
  } else if (mode === 'steps') {
    const pending = JSON.parse(args[0]);
    const deadline = Date.now() + 20_000;
    let applied = 0;
    let attempts = 0;
    while (pending.length > 0) {
      if (Date.now() > deadline) throw new Error(`gave up with ${pending.length} steps never applicable`);
      let progressed = false;
      for (const step of [...pending]) {
        const ref = { project: step.project, id: step.id };
        // An unlocked read is safe (writes are atomic renames) and keeps idle polling off the lock.
        if ((await orange.store.read(ref.project, ref.id)).meta.status !== step.from) continue;
        attempts++;
        const result = await orange.engine.transition(ref, step.to, { expectFrom: step.from });
        if (result.changed) {
          pending.splice(pending.indexOf(step), 1);
          applied++;
          progressed = true;
        }
      }
      if (!progressed) await sleep(5 + Math.random() * 10);
    }
    print({ ok: true, applied, attempts });
  } else if (mode === 'write-loop') {
    const [project, id, bytes] = args;
    const file = orange.paths.taskFile(project, id);
    const { meta } = await orange.store.read(project, id);
    for (let n = 1; ; n++) {
      await writeFileAtomic(file, serializeTask({ meta: { ...meta, summary: `version ${n}` }, body: versionBody(n, Number(bytes)) }));
      if (n === 1) print({ ready: true });
    }
  } else if (mode === 'hold-lock') {
    const [project, id] = args;
    await orange.store.withTaskLock(project, id, async () => {
      const task = await orange.store.read(project, id);
      await orange.store.write({ meta: { ...task.meta, summary: 'written by the holder' }, body: task.body });
      print({ ready: true });
      // Hold the lock until killed.
      await new Promise(() => setInterval(() => undefined, 1_000));
    });
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  process.exit(0);
} catch (error) {
  if (isOrangeError(error)) {
    print({ ok: false, code: error.code, message: error.message });
    process.exit(1);
  }
  print({ ok: false, code: 'E_UNEXPECTED', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(2);
}
