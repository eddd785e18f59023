import { Text } from 'ink';
import { useKeys } from '../hooks/use-keys.js';
import { useState } from 'react';
import { shown } from '../shown-text.js';
import { editText, submittedLine } from '../text-edit.js';

/** A one-line question with a typed answer: Enter submits, Esc cancels. */
export function LinePrompt({ label, onSubmit, onCancel }: { readonly label: string; readonly onSubmit: (text: string) => void; readonly onCancel: () => void }) {
  const [value, setValue] = useState('');
  useKeys((input, key) => {
    if (key.escape) return onCancel();
    if (key.return) return onSubmit(value);
    const line = submittedLine(value, input, key);
    if (line !== null) return onSubmit(line);
    setValue(editText(value, input, key));
  });
  return <Text wrap="truncate">{`${shown(label)} ${shown(value)}▏`}</Text>;
}
