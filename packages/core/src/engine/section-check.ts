import { OrangeError } from '../errors/index.js';
import { sectionNameProblem, strayHeading } from '../task/index.js';
import { oneLineSummary } from '../text/index.js';

/** Largest text `writeSection` takes for one section (TASK.md itself is capped at 8 MB). */
const SECTION_MAX_BYTES = 1024 * 1024;

/** Refuses a section name or text `writeSection` must not write (E_INVALID_INPUT), before anything is locked. */
export function checkSection(name: string, content: string): void {
  const problem = sectionNameProblem(name);
  if (problem) throw new OrangeError('E_INVALID_INPUT', `section "${oneLineSummary(name).slice(0, 60)}": ${problem}`);
  if (Buffer.byteLength(content) > SECTION_MAX_BYTES) {
    throw new OrangeError('E_INVALID_INPUT', `section ${name}: the text is larger than ${SECTION_MAX_BYTES / 1024 / 1024} MB`);
  }
  const stray = strayHeading(content);
  if (stray !== null) {
    throw new OrangeError('E_INVALID_INPUT', `section ${name}: the text has its own level-2 heading "## ${oneLineSummary(stray).slice(0, 60)}", which would start another section; use ### inside a section`);
  }
}
