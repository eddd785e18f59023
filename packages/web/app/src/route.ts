/** The page's places, as `location.hash` spells them. */
export type Route =
  | { readonly page: 'board' }
  | { readonly page: 'task'; readonly project: string; readonly id: string; readonly tab: string | null };

/** `#/` the board; `#/task/<project>/<id>[/<tab>]` a task page (the project URL-encoded). */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/');
  if (parts[0] === 'task' && parts[1] && parts[2]) {
    const project = decoded(parts[1]);
    const id = decoded(parts[2]);
    if (project !== null && id !== null) return { page: 'task', project, id, tab: parts[3] ? decoded(parts[3]) : null };
  }
  return { page: 'board' };
}

/** The hash of a route. */
export function routeHash(route: Route): string {
  if (route.page === 'board') return '#/';
  const tab = route.tab ? `/${encodeURIComponent(route.tab)}` : '';
  return `#/task/${encodeURIComponent(route.project)}/${encodeURIComponent(route.id)}${tab}`;
}

/** The URL path of a task's API (`/api/tasks/<project>/<id>`). */
export function taskPath(ref: { readonly project: string; readonly id: string }): string {
  return `/api/tasks/${encodeURIComponent(ref.project)}/${encodeURIComponent(ref.id)}`;
}

function decoded(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}
