/**
 * The structured fields an agent reported in its final text: the last line that parses as a JSON
 * object (agents are asked to end with one, e.g. `{"intent": "bugfix", "confidence": 0.8}`), or a
 * whole text that is one. Empty when there is none: free text is not an error here, the caller
 * decides what a missing field means.
 */
export function headlessData(text: string): Record<string, unknown> {
  const whole = objectOf(text.trim());
  if (whole) return whole;
  const lines = text.split('\n').map((l) => l.trim().replace(/^`+|`+$/g, ''));
  for (let i = lines.length - 1; i >= 0; i--) {
    const found = objectOf(lines[i] ?? '');
    if (found) return found;
  }
  return {};
}

function objectOf(text: string): Record<string, unknown> | null {
  if (!text.startsWith('{') || !text.endsWith('}')) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
