import { Box, Text } from 'ink';
import { useKeys } from '../hooks/use-keys.js';
import type { AttachInfo } from '@orange/core';
import { attachHelp, helpKeys } from '../key-map.js';
import { shown } from '../shown-text.js';

/** Every key and what it does; any key goes back. */
export function HelpScreen({ onClose, monitor, attach }: { readonly onClose: () => void; readonly monitor: string; readonly attach: AttachInfo | null }) {
  useKeys(() => onClose());
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text bold>Orange dashboard — keys</Text>
      {helpKeys(attach).map((k) => (
        <Text key={k.key} wrap="truncate">
          {shown(`${k.key.padEnd(14)}${k.label}`)}
        </Text>
      ))}
      <Text> </Text>
      <Text>{shown(attachHelp(attach))}</Text>
      <Text>{`The monitor's poll (exit backstop, orphan cleanup, PR sync) is run by: ${shown(monitor)}. The task files are followed live.`}</Text>
      <Text dimColor>any key: back</Text>
    </Box>
  );
}
