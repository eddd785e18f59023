// Loaded into every Node process of a fleet bench run (NODE_OPTIONS=--require): at exit, appends
// the process's own CPU time and what it was to ORANGE_BENCH_CPU_LOG, so the bench can say which
// kind of process the fleet's CPU goes to. Bench-only; Orange itself never loads it.
'use strict';
const { appendFileSync } = require('node:fs');

const log = process.env.ORANGE_BENCH_CPU_LOG;
let reported = false;
function report() {
  if (reported) return;
  reported = true;
  try {
    const { userCPUTime, systemCPUTime } = process.resourceUsage();
    appendFileSync(log, `${JSON.stringify({ argv: process.argv.slice(1, 4), cpu: (userCPUTime + systemCPUTime) / 1e6 })}\n`);
  } catch {
    // A process that cannot report is left out of the breakdown, not broken by it.
  }
}

if (log) {
  process.on('exit', report);
  // A killed window's processes die of SIGHUP: report, then die of it as they would have. A
  // process with handlers of its own decides for itself (and reports at its exit).
  for (const signal of ['SIGHUP', 'SIGTERM']) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 1) return;
      report();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
