import { Box, Text } from 'ink';
import { displayWidth, shown } from '../shown-text.js';

/** The status bar's message: an action's outcome, or a refusal's one-line reason. */
export interface StatusMessage {
  readonly text: string;
  readonly kind: 'info' | 'error' | 'busy';
}

/** How long a message stays: a refusal long enough to read its advice, an outcome a little less; work under way until it ends. */
export const MESSAGE_SHOWN_MS: Readonly<Record<StatusMessage['kind'], number | null>> = { info: 10_000, error: 30_000, busy: null };

/** Lines the status bar takes for `message` at `width`: a long refusal wraps onto a second line rather than losing its advice. */
export function statusBarLines(message: StatusMessage | null, width: number): 1 | 2 {
  return message && displayWidth(shown(message.text)) > Math.max(1, width) ? 2 : 1;
}

/** The last message (a refusal in red) on one line, or two when it is longer; or nothing. */
export function StatusBar({ message, width, colour }: { readonly message: StatusMessage | null; readonly width: number; readonly colour: boolean }) {
  if (!message) return <Text> </Text>;
  const colourName = !colour ? undefined : message.kind === 'error' ? 'red' : message.kind === 'busy' ? 'yellow' : 'green';
  const lines = statusBarLines(message, width);
  return (
    <Box height={lines} width={Math.max(1, width)}>
      <Text color={colourName} wrap="wrap">
        {shown(message.text, Math.max(1, width) * lines)}
      </Text>
    </Box>
  );
}
