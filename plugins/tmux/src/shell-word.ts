/** One word for `sh`: single-quoted, with each `'` closed, escaped and reopened. */
export function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
