/**
 * Live updates for the inbox, a response and the dashboard (issue 11; docs/console.md "Live
 * updates"): the page polls its `GET` every {@link POLL_MS} while it is visible. The API answers
 * lists, a response and stats with a weak `ETag` from the workspace's change counter and
 * `Cache-Control: private, no-cache`, so the browser revalidates each poll with `If-None-Match`
 * and a quiet workspace costs a bodyless 304; the page re-renders only when the tag changed.
 * Why polling and not server-sent events: docs/decisions/live-updates.md.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, type ApiPath } from "./api.ts";
import { toApiError, type Load } from "./components.tsx";

/** How often a live page asks again (ms). */
export const POLL_MS = 5000;

/**
 * Loads `path` now, whenever it changes, and again every {@link POLL_MS} while the tab is
 * visible; keeps the last data during reloads and updates it only when the ETag changes.
 * @param path from apiPath, relative to `/api/v1/` (null: load nothing)
 */
export function useLive<T>(path: ApiPath | null): Load<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>({ data: null, error: null, loading: true });
  const tag = useRef<string | null>(null);
  const current = useRef(path);
  const [tick, setTick] = useState(0);
  current.current = path;
  useEffect(() => {
    if (path === null) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    tag.current = null;
    setState((s) => ({ ...s, loading: true }));
    const once = async () => {
      try {
        const res = await fetch(`/api/v1/${path}`, { headers: { accept: "application/json" }, credentials: "same-origin" });
        if (stopped || current.current !== path) return;
        if (!res.ok) {
          // The API client turns the problem into an ApiError (and handles a lost session).
          await api("GET", path);
          return;
        }
        const etag = res.headers.get("etag");
        if (etag && etag === tag.current) {
          setState((s) => (s.loading || s.error ? { ...s, loading: false, error: null } : s));
          return;
        }
        const data = (await res.json()) as T;
        if (stopped) return;
        tag.current = etag;
        setState({ data, error: null, loading: false });
      } catch (err) {
        if (!stopped) setState((s) => ({ ...s, error: toApiError(err), loading: false }));
      }
    };
    const loop = async () => {
      if (stopped) return;
      if (document.visibilityState === "visible") await once();
      if (!stopped) timer = setTimeout(loop, POLL_MS);
    };
    loop();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
