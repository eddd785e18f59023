// A separate orange process for test/concurrency.test.ts: it loads the BUILT core (dist), as the
// CLI does, so the races are between real processes with their own locks and file handles.
//
//   node race-worker.mjs transition <home> <project> <id> <to>   waits for "go" on stdin first
//   node race-worker.mjs steps <home> <json [{project,id,from,to}]>
//   node race-worker.mjs write-loop <home> <project> <id> <bytes>  writes TASK.md until killed
//   node race-worker.mjs hold-lock <home> <project> <id>           takes the task lock, holds it until killed
//   node race-worker.mjs request <home> <project> <id> <to> <summary> one combined request, after "go"
//   node race-worker.mjs edit-loop <home> <project> <id>           edits TASK.md as an agent does (no lock) until "stop"
//   node race-worker.mjs engine-loop <home> <project> <id> <n> <tag> n engine writes (summary + a sealed field)
//   node race-worker.mjs read-loop <home> <project> <id>           reads and lists until "stop"; counts failures
//   node race-worker.mjs list-loop <home> <project>                lists until "stop", then once more; counts failures
//
// stdout: `{"ready":true}` once set up, then one JSON result line. Exit 0 = done,
// 1 = refused (an OrangeError), 2 = anything else.
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

const core = await import(new URL('../dist/index.js', import.meta.url).href);
const { Orange, OrangePaths, isOrangeError, noopActions, parseSections, serializeTask, setSection, writeFileAtomic } = core;

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

/** Resolves when the parent writes "stop" on stdin. */
function stopSignal() {
  let stopped = false;
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() === 'stop') {
      stopped = true;
      lines.close();
    }
  });
  return () => stopped;
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
  } else if (mode === 'request') {
    const [project, id, to, summary] = args;
    print({ ready: true });
    await waitForGo();
    const result = await orange.engine.request({ project, id }, { status: to, summary });
    print({ ok: true, to: result.transition?.to, summary: result.task.meta.summary });
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
  } else if (mode === 'edit-loop') {
    // An agent's editor: read the whole file, change the body, write it back in place (truncate +
    // write, as fs.writeFileSync and most tools do), with no lock and no knowledge of Orange.
    const [project, id] = args;
    const file = orange.paths.taskFile(project, id);
    const stopped = stopSignal();
    let rounds = 0;
    while (!stopped() || rounds < 1000) {
      const text = readFileSync(file, 'utf8');
      rounds++;
      const notes = parseSections(text).get('Notes') ?? '';
      writeFileSync(file, setSection(text, 'Notes', `${notes}\nedit-${rounds}`));
      if (rounds === 1) print({ ready: true });
      // An agent thinks between edits; a few milliseconds here is already a hyperactive one.
      await sleep(Math.random() * 20);
    }
    print({ ok: true, rounds });
  } else if (mode === 'engine-loop') {
    const [project, id, count, tag] = args;
    const ref = { project, id };
    print({ ready: true });
    for (let i = 1; i <= Number(count); i++) {
      await orange.engine.edit(ref, { summary: `${tag} ${i}` });
      await orange.store.withTaskLock(project, id, () => orange.store.update(project, id, { [`n_${tag}`]: i }));
    }
    print({ ok: true });
  } else if (mode === 'read-loop') {
    const [project, id] = args;
    const stopped = stopSignal();
    print({ ready: true });
    let reads = 0;
    const failures = [];
    while (!stopped()) {
      try {
        await orange.store.read(project, id);
        const { unreadable } = await orange.store.list(project);
        for (const u of unreadable) failures.push(u.error);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
      reads++;
    }
    print({ ok: true, reads, failures: failures.slice(0, 5), failed: failures.length });
  } else if (mode === 'list-loop') {
    const [project] = args;
    const stopped = stopSignal();
    print({ ready: true });
    let lists = 0;
    const failures = [];
    while (!stopped()) {
      try {
        const { unreadable } = await orange.store.list(project);
        for (const u of unreadable) failures.push(`${u.id}: ${u.error}`);
      } catch (error) {
        failures.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
      }
      lists++;
    }
    // The listing once every write has ended: it must hold no stale entry.
    const { tasks, unreadable } = await orange.store.list(project);
    const final = Object.fromEntries(tasks.map((t) => [t.meta.id, { summary: t.meta.summary, status: t.meta.status, tampered: t.tampered }]));
    print({ ok: true, lists, failures: failures.slice(0, 5), failed: failures.length, final, unreadable });
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
