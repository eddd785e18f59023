import { Box, Text } from 'ink';
import { useKeys } from '../hooks/use-keys.js';
import { scrollStep } from '../scroll-keys.js';
import { useState } from 'react';
import { shown } from '../shown-text.js';

/** The whole TASK.md, scrollable: j/k or arrows a line, Space / PgDn a page, Esc, q or v back. */
export function TaskFileView({ title, text, height, onClose }: { readonly title: string; readonly text: string; readonly height: number; readonly onClose: () => void }) {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const page = Math.max(1, height - 2);
  const [top, setTop] = useState(0);
  const maxTop = Math.max(0, lines.length - page);
  useKeys((input, key) => {
    if (key.escape || input === 'q' || input === 'v') return onClose();
    const step = scrollStep(input, key, page, lines.length);
    setTop((t) => Math.min(maxTop, Math.max(0, t + step)));
  });
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">{`${shown(title)} — lines ${top + 1}-${Math.min(lines.length, top + page)} of ${lines.length} (Esc back)`}</Text>
      {lines.slice(top, top + page).map((line, i) => (
        <Text key={top + i} wrap="truncate">
          {shown(line.replace(/\t/g, '  ')) || ' '}
        </Text>
      ))}
    </Box>
  );
}
