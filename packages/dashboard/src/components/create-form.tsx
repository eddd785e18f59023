import { Box, Text } from 'ink';
import { useKeys } from '../hooks/use-keys.js';
import { useState } from 'react';
import type { CreateRequest } from '../task-actions.js';
import { shown } from '../shown-text.js';
import { editText } from '../text-edit.js';

export interface CreateFormProps {
  readonly projects: readonly string[];
  /** The project the form starts on (the dashboard's scope). */
  readonly project: string | null;
  /** Installed harnesses; the form cycles through them after "default". */
  readonly harnesses: readonly string[];
  readonly onSubmit: (request: CreateRequest) => void;
  readonly onCancel: () => void;
  readonly colour: boolean;
  /** What the form shows at first: what was typed before a refusal, so nothing typed is lost. */
  readonly initial?: CreateRequest;
}

type Field = 'project' | 'branch' | 'summary' | 'harness' | 'status';
const FIELDS: readonly Field[] = ['project', 'branch', 'summary', 'harness', 'status'];
const STATUSES = ['pending', 'reviewing'] as const;

/**
 * The `c` form: branch and summary typed; project, harness and status cycled with ←/→ or Space.
 * Tab / ↓ / ↑ move between fields, Enter creates, Esc leaves without creating anything.
 */
export function CreateForm({ projects, project, harnesses, onSubmit, onCancel, colour, initial }: CreateFormProps) {
  const [field, setField] = useState<Field>('branch');
  const [values, setValues] = useState({ project: initial?.project ?? project ?? projects[0] ?? '', branch: initial?.branch ?? '', summary: initial?.summary ?? '' });
  const [harness, setHarness] = useState<string | null>(initial?.harness ?? null);
  const [status, setStatus] = useState<(typeof STATUSES)[number]>(initial?.status ?? 'pending');
  const harnessChoices: Array<string | null> = [null, ...harnesses];

  const cycle = (step: number) => {
    if (field === 'project' && projects.length > 0) {
      const at = projects.indexOf(values.project);
      setValues({ ...values, project: projects[(at + step + projects.length) % projects.length] ?? values.project });
    } else if (field === 'harness') {
      const at = harnessChoices.indexOf(harness);
      setHarness(harnessChoices[(at + step + harnessChoices.length) % harnessChoices.length] ?? null);
    } else if (field === 'status') {
      setStatus(STATUSES[(STATUSES.indexOf(status) + 1) % STATUSES.length] ?? 'pending');
    }
  };

  const nextField = (from: Field, step: number): Field => FIELDS[(FIELDS.indexOf(from) + step + FIELDS.length) % FIELDS.length] ?? 'branch';

  useKeys((input, key) => {
    // Keys typed faster than the screen reads them arrive as one input ("\tmade in…"): a Tab in it
    // still moves to the next field instead of being dropped as a control character.
    if (input.length > 1 && input.includes('\t') && !key.ctrl && !key.meta) {
      let at = field;
      let typed = values;
      for (const part of input.split(/(\t)/)) {
        if (part === '\t') at = nextField(at, 1);
        else if (part !== '' && (at === 'branch' || at === 'summary')) typed = { ...typed, [at]: editText(typed[at], part, {}) };
      }
      setValues(typed);
      setField(at);
      return;
    }
    if (key.escape) return onCancel();
    if (key.return) return onSubmit({ project: values.project, branch: values.branch, summary: values.summary, harness, status });
    if (key.tab || key.downArrow || key.upArrow) {
      setField(nextField(field, key.upArrow || key.shift ? -1 : 1));
      return;
    }
    if (field === 'branch' || field === 'summary') {
      setValues({ ...values, [field]: editText(values[field], input, key) });
      return;
    }
    if (key.leftArrow) cycle(-1);
    else if (key.rightArrow || input === ' ') cycle(1);
  });

  const line = (name: Field, label: string, value: string, hint = '') => (
    <Text key={name} inverse={field === name} wrap="truncate">
      {`${label.padEnd(9)}${shown(value)}${field === name && (name === 'branch' || name === 'summary') ? '▏' : ''}${hint}`}
    </Text>
  );
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={colour ? 'cyan' : undefined} paddingX={1}>
      <Text bold>New task</Text>
      {line('project', 'project', values.project || '(none registered)', projects.length > 1 ? '  ←/→' : '')}
      {line('branch', 'branch', values.branch, values.branch ? '' : '  (empty: orange-tasks/<id>)')}
      {line('summary', 'summary', values.summary, values.summary ? '' : '  (empty: the agent asks first)')}
      {line('harness', 'harness', harness ?? 'default', '  ←/→')}
      {line('status', 'status', status, status === 'pending' ? '  (starts the agent now)' : '  (for a human review; no agent)')}
      <Text dimColor>Tab/↑/↓ field · Enter create · Esc cancel</Text>
    </Box>
  );
}
