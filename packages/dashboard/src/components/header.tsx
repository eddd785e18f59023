import { Box, Text } from 'ink';
import { shown } from '../shown-text.js';
import type { RowFilter } from '../task-row.js';

export interface HeaderProps {
  /** The scope: a project's name, or "all projects". */
  readonly scope: string;
  readonly filter: RowFilter;
  readonly search: string;
  readonly agents: number;
  readonly needsYou: number;
  /** Who runs the monitor's poll, for the right side. */
  readonly monitor: string;
  readonly width: number;
  readonly colour: boolean;
}

/** `Orange · app (active)` on the left; agents running, tasks waiting for a human, the monitor on the right. */
export function Header({ scope, filter, search, agents, needsYou, monitor, width, colour }: HeaderProps) {
  const left = shown(`Orange · ${scope} (${filter})${search ? ` /${search}` : ''}`, Math.max(10, width - 40));
  const right = `${agents} agent${agents === 1 ? '' : 's'} · ${needsYou} need${needsYou === 1 ? 's' : ''} you · ${monitor}`;
  return (
    <Box width={width} justifyContent="space-between">
      <Text bold color={colour ? '#ff8c00' : undefined} wrap="truncate">
        {left}
      </Text>
      <Text wrap="truncate">{right}</Text>
    </Box>
  );
}
