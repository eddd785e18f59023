/** How a unified-diff line is drawn: additions green, removals red, hunks cyan, file headers dim. */
export type DiffLineKind = 'add' | 'remove' | 'hunk' | 'header' | 'context';

/** One file's part of a unified diff. */
export interface DiffFile {
  /** The file's path (the new one; the old one for a deleted file). */
  readonly path: string;
  /** Its lines, from `diff --git` to the line before the next file. */
  readonly lines: readonly string[];
  readonly added: number;
  readonly removed: number;
}

/** The kind of one line (as the dashboard's diff view colours it). */
export function diffLineKind(line: string): DiffLineKind {
  if (line.startsWith('diff --git ') || line.startsWith('+++ ') || line.startsWith('--- ') || line.startsWith('index ')) return 'header';
  if (/^(new|deleted) file mode |^(old|new) mode |^similarity index |^rename (from|to) |^Binary files /.test(line)) return 'header';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'remove';
  return 'context';
}

/**
 * A unified diff split per file at its `diff --git` lines, each with the lines it adds and
 * removes. Text before the first file (none from git) is kept as a file with an empty path.
 */
export function splitDiff(text: string): DiffFile[] {
  const lines = text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  if (lines.length === 1 && lines[0] === '') return [];
  const files: DiffFile[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) files.push(fileOf(current));
  };
  for (const line of lines) {
    if (line.startsWith('diff --git ') && current.length > 0) {
      flush();
      current = [];
    }
    current.push(line);
  }
  flush();
  return files;
}

function fileOf(lines: string[]): DiffFile {
  let added = 0;
  let removed = 0;
  let inHunk = false;
  for (const line of lines) {
    if (line.startsWith('@@')) inHunk = true;
    else if (inHunk && line.startsWith('+')) added++;
    else if (inHunk && line.startsWith('-')) removed++;
  }
  return { path: pathOf(lines), lines, added, removed };
}

function pathOf(lines: readonly string[]): string {
  const next = lines.find((l) => l.startsWith('+++ ') && l !== '+++ /dev/null');
  if (next) return unprefixed(next.slice(4));
  const previous = lines.find((l) => l.startsWith('--- ') && l !== '--- /dev/null');
  if (previous) return unprefixed(previous.slice(4));
  const rename = lines.find((l) => l.startsWith('rename to '));
  if (rename) return rename.slice('rename to '.length);
  const header = lines[0]?.startsWith('diff --git ') ? /^diff --git (?:"?a\/)(.*?)"? (?:"?b\/)(.*?)"?$/.exec(lines[0]) : null;
  return header?.[2] ?? '';
}

function unprefixed(path: string): string {
  const unquoted = path.startsWith('"') && path.endsWith('"') ? path.slice(1, -1) : path;
  return unquoted.replace(/^[ab]\//, '').replace(/\t.*$/, '');
}
