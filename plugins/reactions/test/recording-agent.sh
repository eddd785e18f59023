#!/bin/sh
# The agent of the reactions tests, run by the tmux plugin in a real pane (through its exit wrapper).
# It records its start (role, spawn id, pid) after the prompt it was given, then every line typed
# into its terminal, read as an agent reads its input: what the agent really received.
dir="$AGENT_RECORDS/$ORANGE_TASK_ID"
mkdir -p "$dir"
printf '%s' "$ORANGE_PROMPT" > "$dir/$ORANGE_SPAWN_ID.prompt"
printf '%s %s %s\n' "$ORANGE_ROLE" "$ORANGE_SPAWN_ID" "$$" >> "$dir/starts"
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$dir/$ORANGE_ROLE.lines"
done
