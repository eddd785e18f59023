import { useEffect, useState } from 'preact/hooks';

/** The time now, ticking every `ms` (the ACTIVITY column's relative times). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
