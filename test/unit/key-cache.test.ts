// The key cache shares one database read per key among callers asking at once (every open socket
// rechecks its credential after a project change), and never hands a read begun before a change to
// a caller after it.
import { describe, expect, it } from 'vitest';
import { KeyCache } from '../../domain/projects/key-cache.js';

describe('KeyCache.shared', () => {
  it('runs one load for callers asking at once, and a fresh one after a change', async () => {
    const cache = new KeyCache();
    const finish: Array<(v: string) => void> = [];
    const load = () => new Promise<string>((r) => finish.push(r));
    const first = Array.from({ length: 50 }, () => cache.shared('key:h', load));
    expect(finish).toHaveLength(1);
    cache.forget(); // a rotation lands while the read is in flight
    const after = cache.shared('key:h', load);
    expect(finish).toHaveLength(2);
    finish[0]!('old');
    finish[1]!('new');
    expect(new Set(await Promise.all(first))).toEqual(new Set(['old']));
    expect(await after).toBe('new');
  });

  it('forgets a finished read: the next caller loads again', async () => {
    const cache = new KeyCache();
    let loads = 0;
    await cache.shared('key:h', async () => ++loads);
    await cache.shared('key:h', async () => ++loads);
    expect(loads).toBe(2);
  });
});
