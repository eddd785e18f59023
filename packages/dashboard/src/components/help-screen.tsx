import { Box, Text } from 'ink';
import { useKeys } from '../hooks/use-keys.js';
import type { AttachInfo } from '@orange/core';
import { attachHelp, helpKeys } from '../key-map.js';

/** Every key and what it does; any key goes back. */
export function HelpScreen({ onClose, monitor, attach }: { readonly onClose: () => void; readonly monitor: string; readonly attach: AttachInfo | null }) {
  useKeys(() => onClose());
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text bold>Orange dashboard — keys</Text>
      {helpKeys(attach).map((k) => (
        <Text key={k.key} wrap="truncate">
          {`${k.key.padEnd(14)}${k.label}`}
        </Text>
      ))}
      <Text> </Text>
      <Text>{attachHelp(attach)}</Text>
      <Text wrap="truncate">{`While open: the task files are followed live; the monitor's poll (exit backstop, orphan cleanup, PR sync) is run by: ${monitor}.`}</Text>
      <Text dimColor>any key: back</Text>
    </Box>
  );
}
