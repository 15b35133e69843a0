import { useEffect, useState } from 'preact/hooks';

let source: EventSource | undefined;

/** The one event stream of the page: the server says what changed, the page reads it again. */
function events(): EventSource {
  source ??= new EventSource('/ui/api/events');
  return source;
}

/** Calls `reload` now and whenever the server sends one of `names` (and when the stream reconnects). */
export function useLive(names: string[], reload: () => void): void {
  useEffect(() => {
    reload();
    const stream = events();
    const listener = () => reload();
    for (const name of [...names, 'ready']) stream.addEventListener(name, listener);
    return () => {
      for (const name of [...names, 'ready']) stream.removeEventListener(name, listener);
    };
  }, []);
}

/** The time now, moving every `everyMs`: for countdowns and "ago". */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
