import { dirname, relative } from 'node:path';
import { inlineText, isOrangeError } from '@orange/core';
import { OrangeCommand } from '../command/base-command.js';
import { EXIT_REFUSED, writeError } from '../command/error-output.js';

export default class Doctor extends OrangeCommand {
  static override audience = 'reader' as const;
  static override summary = 'Show what the config loads, from which file, and every problem (exit 1 if any).';
  static override description = [
    'Lists every plugin, gate, action, harness (installed or not, with its version) and workflow with',
    'the file that provides it; validates every workflow (guards on undeclared fields too); checks that',
    'harness and reviewHarness are installed, that git, tmux and gh are there, and ORANGE_HOME. Prints',
    "the CLI's version, the @orange/core and zod it bundles, and the copies of @orange/* and zod the",
    'repository installed (a major or minor version apart from the CLI is a problem). Each problem is',
    'one line on stderr.',
  ].join(' ');
  static override examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --json'];

  async run(): Promise<void> {
    await this.parse(Doctor);
    let orange;
    try {
      orange = await this.orange();
    } catch (error) {
      // A config that does not load is the first thing a doctor reports, not a crash of the doctor.
      if (!isOrangeError(error)) throw error;
      this.emit({ problems: [error.message] }, () => undefined);
      if (!this.json) writeError(error.message, error.code, false);
      process.exitCode = EXIT_REFUSED;
      return;
    }
    const [{ diagnose }, { defaultPlugins }] = await Promise.all([import('../doctor/doctor.js'), import('../startup/default-plugins.js')]);
    const report = await diagnose(orange, defaultPlugins(), this.config.version);
    this.emit(report, () => {
      // Every cell may come from outside (a repository's package.json, a harness's --version, a
      // path): each is made one inert line before it is measured and printed.
      const rows = (title: string, entries: string[][]) => {
        this.log(title);
        const cells = entries.map((row) => row.map((cell) => inlineText(cell)));
        const widths = cells.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
        for (const row of cells) this.log(`  ${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')}`.trimEnd());
      };
      const { cli, bundled } = report.versions;
      const carried = ['@orange/core', 'zod'].filter((name) => bundled[name] !== undefined).map((name) => `${name} ${bundled[name]}`);
      this.log(inlineText(`orange      ${cli}${carried.length > 0 ? ` (bundles ${carried.join(', ')})` : ''}`));
      this.log(inlineText(`config      ${report.config ?? 'none (the built-in default)'}`));
      this.log(inlineText(`ORANGE_HOME ${report.home.path}${report.home.mode ? ` (mode ${report.home.mode}${report.home.writable ? ', writable' : ', NOT writable'})` : ' (not created yet)'}`));
      rows('plugins', report.plugins.map((p) => [p.name, p.from]));
      rows('gates', report.gates.map((g) => [g.name, g.from]));
      rows('actions', report.actions.map((a) => [a.name, a.plugins.join(', '), [...new Set(a.from)].join(', ')]));
      rows('harnesses', report.harnesses.map((h) => [h.name, h.installed ? `installed${h.version ? ` ${h.version}` : ''}` : 'not installed', h.from]));
      rows('workflows', report.workflows.map((w) => [w.name, w.ok ? 'valid' : 'INVALID', w.plugin === null ? w.from : `plugin ${w.plugin}, ${w.from}`]));
      rows('tools', report.tools.map((t) => [t.name, t.version ?? 'not installed']));
      const { installed } = report.versions;
      if (installed.length > 0) {
        const base = report.config ? dirname(report.config) : process.cwd();
        rows("installed (as resolved from the config's folder)", installed.map((c) => [c.name, c.version, relative(base, c.path), c.ok ? '' : `MISMATCH: orange uses ${c.expected}`]));
      }
      for (const note of report.notes) this.log(`note: ${inlineText(note)}`);
      this.log(report.problems.length === 0 ? 'no problems found' : `${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}`);
    });
    if (report.problems.length > 0) {
      if (!this.json) for (const problem of report.problems) writeError(problem, 'E_DOCTOR', false);
      process.exitCode = EXIT_REFUSED;
    }
  }
}
