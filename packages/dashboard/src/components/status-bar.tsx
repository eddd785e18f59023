import { Text } from 'ink';
import { shown } from '../shown-text.js';

/** The status bar's message: an action's outcome, or a refusal's one-line reason. */
export interface StatusMessage {
  readonly text: string;
  readonly kind: 'info' | 'error' | 'busy';
}

/** One line: the last message (a refusal in red), or nothing. */
export function StatusBar({ message, width, colour }: { readonly message: StatusMessage | null; readonly width: number; readonly colour: boolean }) {
  if (!message) return <Text> </Text>;
  const colourName = !colour ? undefined : message.kind === 'error' ? 'red' : message.kind === 'busy' ? 'yellow' : 'green';
  return (
    <Text color={colourName} wrap="truncate">
      {shown(message.text, Math.max(1, width))}
    </Text>
  );
}
