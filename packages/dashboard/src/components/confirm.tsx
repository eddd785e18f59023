import { Text } from 'ink';
import { useKeys } from '../hooks/use-keys.js';
import { shown } from '../shown-text.js';

/** A yes/no question in place of the status bar: `y` confirms, anything else declines. */
export function Confirm({ question, onAnswer, colour }: { readonly question: string; readonly onAnswer: (yes: boolean) => void; readonly colour: boolean }) {
  useKeys((input) => onAnswer(input === 'y' || input === 'Y'));
  return (
    <Text color={colour ? 'yellow' : undefined} wrap="truncate">
      {`${shown(question)} [y/N]`}
    </Text>
  );
}
