import { Box, Text } from 'ink';
import { useState } from 'react';
import type { AttachInfo } from '@orange/core';
import { useKeys } from '../hooks/use-keys.js';
import { attachHelp, helpKeys } from '../key-map.js';
import { shown, wrapped } from '../shown-text.js';

const KEY_W = 14;

/**
 * Every key and what it does, each description wrapped under itself (never cut), then how
 * attaching works and who runs the monitor. When it is longer than the screen, j/k (↓/↑) and
 * Space scroll it; any other key goes back.
 */
export function HelpScreen({ onClose, monitor, attach, width, height }: { readonly onClose: () => void; readonly monitor: string; readonly attach: AttachInfo | null; readonly width: number; readonly height: number }) {
  const inner = Math.max(20, width - 2);
  const lines = [
    ...helpKeys(attach).flatMap((k) => wrapped(`${k.key.padEnd(KEY_W)}${shown(k.label)}`, inner, KEY_W)),
    '',
    ...wrapped(shown(attachHelp(attach)), inner),
    ...wrapped(`The monitor's poll (exit backstop, orphan cleanup, PR sync) is run by: ${shown(monitor)}. The task files are followed live.`, inner),
  ];
  const page = Math.max(1, height - 3);
  const [top, setTop] = useState(0);
  const maxTop = Math.max(0, lines.length - page);
  useKeys((input, key) => {
    const step = key.downArrow || input === 'j' ? 1 : key.upArrow || input === 'k' ? -1 : key.pageDown || input === ' ' ? page : key.pageUp ? -page : null;
    if (step === null || maxTop === 0) return onClose();
    setTop((t) => Math.min(maxTop, Math.max(0, t + step)));
  });
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text bold>Orange dashboard — keys</Text>
      {lines.slice(top, top + page).map((line, i) => (
        <Text key={top + i} wrap="truncate">
          {line || ' '}
        </Text>
      ))}
      <Text dimColor>{maxTop > 0 ? `lines ${top + 1}-${Math.min(lines.length, top + page)} of ${lines.length} · j/k scroll · any other key: back` : 'any key: back'}</Text>
    </Box>
  );
}
