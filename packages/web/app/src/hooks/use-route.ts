import { useEffect, useState } from 'preact/hooks';
import { parseRoute, routeHash, type Route } from '../route';

/** The page's place, following `location.hash`. */
export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}

/** Goes to a place (a new history entry; `replace` for a place that should not be returned to). */
export function navigate(route: Route, replace = false): void {
  const hash = routeHash(route);
  if (replace) {
    history.replaceState(null, '', hash);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else location.hash = hash;
}
