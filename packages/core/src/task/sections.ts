/**
 * TASK.md body sections. A section runs from its `## Name` line to the next level-2 heading
 * or the end of the file; headings inside fenced code blocks do not count (agents paste code).
 */
export type Sections = ReadonlyMap<string, string>;

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const LEVEL_TWO = /^\s{0,3}##\s+(.+?)\s*#*\s*$/;

/** Splits a markdown body into its level-2 sections, keyed by heading text. First one wins. */
export function parseSections(body: string): Sections {
  const sections = new Map<string, string>();
  let current: string | null = null;
  let lines: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    if (current !== null && !sections.has(current)) sections.set(current, lines.join('\n').trim());
  };
  for (const line of body.split(/\r?\n/)) {
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] as string;
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
    } else if (fence === null) {
      const heading = LEVEL_TWO.exec(line);
      if (heading && !line.trimStart().startsWith('###')) {
        flush();
        current = heading[1] as string;
        lines = [];
        continue;
      }
    }
    if (current !== null) lines.push(line);
  }
  flush();
  return sections;
}

/** Replaces (or appends) one section's content, leaving every other byte of the body alone. */
export function setSection(body: string, name: string, content: string): string {
  const all = body.split(/\r?\n/);
  let start = -1;
  let end = all.length;
  let fence: string | null = null;
  for (let i = 0; i < all.length; i++) {
    const line = all[i] as string;
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1] as string;
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const heading = LEVEL_TWO.exec(line);
    if (heading && !line.trimStart().startsWith('###')) {
      if (start >= 0) {
        end = i;
        break;
      }
      if (heading[1] === name) start = i;
    }
  }
  const block = [`## ${name}`, '', content.trim(), ''];
  if (start < 0) {
    const trimmed = body.replace(/\s+$/, '');
    return `${trimmed}${trimmed ? '\n\n' : ''}${block.join('\n')}`;
  }
  return [...all.slice(0, start), ...block, ...all.slice(end)].join('\n');
}

/** Why `name` cannot be a section heading written by `setSection`, or null when it can. */
export function sectionNameProblem(name: string): string | null {
  if (name.trim() === '') return 'a section name cannot be empty';
  if (name !== name.trim()) return 'a section name cannot start or end with spaces';
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'a section name must be one line of printable text';
  if (name.startsWith('#')) return 'give the name without the ## (e.g. Handoff)';
  if (name.length > 100) return 'a section name must be at most 100 characters';
  return null;
}

/**
 * The first level-2 heading (outside fenced code) in a section's new content, or null. Written as
 * it is, such a heading would start another section and cut this one short.
 */
export function strayHeading(content: string): string | null {
  return parseSections(content).keys().next().value ?? null;
}

/**
 * Text from outside (an issue body, a reviewer's comment, a CI log) made inert inside one section:
 * a line that would open a section of its own (`## Plan`) is escaped as markdown (`\## Plan`), so
 * no text from outside ever becomes a section an exit rule or a gate reads.
 */
export function inertHeadings(text: string): string {
  // Indentation alone would not do: a heading may be indented up to three spaces.
  return text.replace(/^(\s*)(##+)(\s)/gm, (whole, indent: string, hashes: string, space: string) => (hashes.length === 2 ? `${indent}\\${hashes}${space}` : whole));
}
