import { useEffect, useState } from 'preact/hooks';
import { parseRoute, routeHash, type Route } from '../route';

/** The page's place, following `location.hash`. */
export function useRoute(): Route {
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => {
      const next = parseRoute(location.hash);
      setRoute((current) => (routeHash(current) === routeHash(next) ? current : next));
    };
    window.addEventListener('hashchange', changed);
    // The hash may have changed between the first render and this effect (a link followed while
    // the page still loads): its hashchange has fired already, so read it once more.
    changed();
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
