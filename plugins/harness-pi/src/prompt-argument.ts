/**
 * pi knows no `--`: an argument starting with "-" is read as an option and one starting with
 * "@" as a file to attach. A leading space keeps such a prompt a message, and changes nothing
 * the model reads into it.
 */
export function promptArgument(prompt: string): string {
  return prompt.startsWith('-') || prompt.startsWith('@') ? ` ${prompt}` : prompt;
}
