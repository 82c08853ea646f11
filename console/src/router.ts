// Hash routes (#/p/<project>/persons/<id>): the server serves one page at `/`, and a route never
// carries the key.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** Path segments after `#/`, decoded. */
  segments: string[];
}

function currentRoute(): Route {
  const raw = location.hash.replace(/^#\/?/, '').split('?')[0];
  const segments =
    raw === ''
      ? []
      : raw
          .split('/')
          .filter((part) => part !== '')
          .map((part) => {
            try {
              return decodeURIComponent(part);
            } catch {
              return part;
            }
          });
  return { segments };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** The href of a route; every segment is encoded, so an id can never change the route's shape. */
export function href(...segments: Array<string | number>): string {
  return `#/${segments.map((segment) => encodeURIComponent(String(segment))).join('/')}`;
}

export function navigate(...segments: Array<string | number>) {
  location.hash = href(...segments);
}

export const projectHref = (projectId: number, ...rest: Array<string | number>) => href('p', projectId, ...rest);

/** A parameter of the route's own query (`#/setup?token=…`): it stays in the hash, never reaching the server. */
export function routeParameter(name: string): string | null {
  const at = location.hash.indexOf('?');
  return at < 0 ? null : new URLSearchParams(location.hash.slice(at + 1)).get(name);
}

/** The whole query of the route (`#/p/1/insights?insight=TRENDS&…`), empty when it has none. */
export function routeQuery(): URLSearchParams {
  const at = location.hash.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : location.hash.slice(at + 1));
}

/**
 * Puts a screen's state in the route's query, keeping its path: replaced in place (no history entry
 * per keystroke, no hashchange), so a reload or a shared link opens the same state. Empty values
 * are left out.
 */
export function replaceRouteQuery(parameters: Record<string, string | undefined>) {
  const path = location.hash.split('?')[0] || '#/';
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters))
    if (value !== undefined && value !== '') query.set(name, value);
  const text = query.toString();
  const next = text ? `${path}?${text}` : path;
  if (next !== location.hash) history.replaceState(history.state, '', next);
}
