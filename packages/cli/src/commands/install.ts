import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as Flags from '@oclif/core/flags';
import { inlineText, OrangeError, writeFileAtomic } from '@orange/core';
import { OrangeCommand } from '../command/base-command.js';
import { SKILL_MARKDOWN, SKILL_NAME } from '../init/skill.js';

export default class Install extends OrangeCommand {
  static override summary = 'Install the Orange agent skill for each installed harness (e.g. ~/.claude/skills/orange/SKILL.md).';
  static override description = 'The skill tells workers, reviewers and an orchestrating agent how to work with Orange. Running it again updates the files.';
  static override examples = ['<%= config.bin %> install', '<%= config.bin %> install --harness claude'];
  static override flags = {
    harness: Flags.string({ description: 'Only this harness.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Install);
    const orange = await this.orange();
    const harnesses = [...orange.harnesses.values()].filter((h) => !h.internal && (flags.harness === undefined || h.name === flags.harness));
    if (flags.harness !== undefined && harnesses.length === 0) {
      throw new OrangeError('E_HARNESS', `no harness named "${flags.harness}" (known: ${orange.agentHarnessNames().join(', ') || 'none'})`);
    }
    const installed: Array<{ harness: string; file: string }> = [];
    const skipped: string[] = [];
    const absent: string[] = [];
    for (const harness of harnesses) {
      if (!harness.skillsDir) {
        skipped.push(harness.name);
        continue;
      }
      // A skill for an agent CLI that is not on this machine would only create a stray ~/.codex;
      // asked for by name, it is written anyway (the CLI may be installed next).
      if (flags.harness === undefined && !(await harness.installed())) {
        absent.push(harness.name);
        continue;
      }
      const dir = join(harness.skillsDir, SKILL_NAME);
      await mkdir(dir, { recursive: true });
      const file = join(dir, 'SKILL.md');
      await writeFileAtomic(file, SKILL_MARKDOWN);
      installed.push({ harness: harness.name, file });
    }
    if (flags.harness !== undefined && installed.length === 0) {
      throw new OrangeError('E_HARNESS', `harness ${flags.harness} has no skills directory; nothing to install`);
    }
    orange.log.info('skill installed', { files: installed.map((i) => i.file) });
    this.emit({ installed, skipped, notInstalled: absent }, () => {
      for (const i of installed) this.log(inlineText(`${i.harness}: wrote ${i.file}`));
      if (skipped.length) this.log(inlineText(`no skills directory (skipped): ${skipped.join(', ')}`));
      if (absent.length) this.log(inlineText(`not installed (skipped; name one with --harness to write it anyway): ${absent.join(', ')}`));
      if (installed.length === 0) this.log('no skill written: no installed harness has a skills directory');
    });
  }
}
