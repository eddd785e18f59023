import { Box, Text } from 'ink';
import { useKeys } from '../hooks/use-keys.js';
import { shown } from '../shown-text.js';

/**
 * A yes/no question in place of the status bar: `y` confirms, anything else declines. A question
 * wider than the terminal is cut, never the `[y/N]` after it.
 */
export function Confirm({ question, onAnswer, colour }: { readonly question: string; readonly onAnswer: (yes: boolean) => void; readonly colour: boolean }) {
  useKeys((input) => onAnswer(input === 'y' || input === 'Y'));
  const tint = colour ? 'yellow' : undefined;
  return (
    <Box>
      <Box flexShrink={1}>
        <Text color={tint} wrap="truncate">
          {shown(question)}
        </Text>
      </Box>
      <Box flexShrink={0}>
        <Text color={tint}> [y/N]</Text>
      </Box>
    </Box>
  );
}
