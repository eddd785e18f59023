/**
 * Renders a prompt template: `{name}` is replaced by the task field of that name
 * (`{summary} {project} {branch} {review_round} {status}` and any workflow field).
 * Unknown names and non-identifier braces (`{working|stuck based on round}`) are left as written.
 */
export function renderPrompt(template: string, fields: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, key: string) => {
    const value = fields[key];
    return value === undefined || value === null ? whole : String(value);
  });
}
