import { Box, Text } from 'ink';
import { useState } from 'react';
import { useKeys } from '../hooks/use-keys.js';
import { scrollStep } from '../scroll-keys.js';
import { shown } from '../shown-text.js';

/** The colour of a unified-diff line: additions green, removals red, hunks cyan, file headers yellow. */
export function diffLineColour(line: string): string | undefined {
  if (line.startsWith('diff --git ')) return 'yellow';
  if (line.startsWith('+++ ') || line.startsWith('--- ')) return undefined;
  if (line.startsWith('+')) return 'green';
  if (line.startsWith('-')) return 'red';
  if (line.startsWith('@@')) return 'cyan';
  return undefined;
}

/** Where each file's part of a unified diff starts (its `diff --git` line). */
export function fileStarts(lines: readonly string[]): number[] {
  return lines.flatMap((line, i) => (line.startsWith('diff --git ') ? [i] : []));
}

/**
 * The whole diff of a task's branch, coloured and scrollable: j/k or arrows a line, Space / PgDn a
 * page, g / G the ends, n / N the next or previous file; Esc, q or the diff key back. Every line
 * goes through the sanitiser: it is an agent's text.
 */
export function DiffView({ title, text, height, width, colour, closeKey, onClose }: {
  readonly title: string;
  readonly text: string;
  readonly height: number;
  readonly width: number;
  readonly colour: boolean;
  readonly closeKey: string;
  readonly onClose: () => void;
}) {
  const lines = text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  const files = fileStarts(lines);
  const page = Math.max(1, height - 2);
  const [top, setTop] = useState(0);
  // A file jumped to starts at the top, even the last one (the page ends blank then).
  const maxTop = Math.max(0, lines.length - page, files.at(-1) ?? 0);
  const clamp = (at: number) => Math.min(maxTop, Math.max(0, at));
  useKeys((input, key) => {
    if (key.escape || input === 'q' || input === closeKey) return onClose();
    if (input === 'n') return setTop((t) => clamp(files.find((f) => f > t) ?? t));
    if (input === 'N') return setTop((t) => clamp([...files].reverse().find((f) => f < t) ?? 0));
    const step = scrollStep(input, key, page, lines.length);
    setTop((t) => clamp(t + step));
  });
  const file = files.filter((f) => f <= top).length;
  const where = files.length > 0 ? ` — file ${Math.max(1, file)} of ${files.length}` : '';
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">{shown(`${title}${where} — lines ${top + 1}-${Math.min(lines.length, top + page)} of ${lines.length} (n/N file, Esc back)`, Math.max(1, width))}</Text>
      {lines.slice(top, top + page).map((line, i) => (
        <Text key={top + i} wrap="truncate" color={colour ? diffLineColour(line) : undefined} bold={line.startsWith('diff --git ')}>
          {shown(line.replace(/\t/g, '    '), Math.max(1, width)) || ' '}
        </Text>
      ))}
    </Box>
  );
}
