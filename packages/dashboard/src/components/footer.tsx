import { Text } from 'ink';
import type { FooterKey } from '../key-map.js';
import { displayWidth, shown } from '../shown-text.js';

/** Keys left out first when the line is too narrow (they are all in the `?` help). */
const DROPPED_FIRST = ['f', '/', 'y', 'tab', 'R', 'v', 'D', 'j/k', 'p', 'c'];

/**
 * The keys that apply to the selected task, on one line; the least needed ones give way on a
 * narrow terminal. A label may carry a plugin's text (the runtime's keys back): the line is shown
 * through the sanitiser and measured in display columns.
 */
export function Footer({ keys, width }: { readonly keys: readonly FooterKey[]; readonly width: number }) {
  let kept = [...keys];
  const line = () => shown(kept.map((k) => `${k.key} ${k.label}`).join('  '));
  for (const key of DROPPED_FIRST) {
    if (displayWidth(line()) <= width) break;
    kept = kept.filter((k) => k.key !== key);
  }
  return <Text wrap="truncate">{shown(line(), Math.max(0, width))}</Text>;
}
