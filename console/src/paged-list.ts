// A list page of the API (`?limit=50&cursor=…` answering `{ items, next_cursor }`), loaded on
// mount and a page at a time after: the schedules' and destinations' pages share it.
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';

export function usePagedList<T>(path: string, onError: (text: string) => void) {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);

  /** The first page again (no argument), or the page after `after`, appended. */
  const load = async (after: string | null = null) => {
    try {
      const page = await getJson<{ items: T[]; next_cursor: string | null }>(`${path}?limit=50${after ? `&cursor=${encodeURIComponent(after)}` : ''}`);
      setItems((old) => (after ? [...old, ...page.items] : page.items));
      setCursor(page.next_cursor);
    } catch (err) {
      onError((err as Error).message);
    } finally {
      setLoaded(true);
    }
  };
  useEffect(() => void load(), []);
  return { items, setItems, cursor, loaded, load };
}
