import { Text } from 'ink';
import { useKeys } from '../hooks/use-keys.js';
import { useState } from 'react';
import { shown } from '../shown-text.js';
import { editText } from '../text-edit.js';

/** A one-line question with a typed answer: Enter submits, Esc cancels. */
export function LinePrompt({ label, onSubmit, onCancel }: { readonly label: string; readonly onSubmit: (text: string) => void; readonly onCancel: () => void }) {
  const [value, setValue] = useState('');
  useKeys((input, key) => {
    if (key.escape) return onCancel();
    if (key.return) return onSubmit(value);
    // A line pasted (or typed faster than the screen reads it) arrives with its Enter in one read.
    const line = /[\r\n]+$/.exec(input);
    if (line && !key.ctrl && !key.meta) return onSubmit(editText(value, input.slice(0, line.index), key));
    setValue(editText(value, input, key));
  });
  return <Text wrap="truncate">{`${shown(label)} ${shown(value)}▏`}</Text>;
}
