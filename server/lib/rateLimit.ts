/** Fixed-window counters in memory, per key: enough for one process guarding its sign-in endpoints. */
export function rateLimiter(opts: { limit: number; windowMs: number; now: () => number }) {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    /** Counts one hit; false when the key is over its limit in this window. */
    hit(key: string): boolean {
      const now = opts.now();
      let w = windows.get(key);
      if (!w || now - w.start >= opts.windowMs) {
        w = { start: now, count: 0 };
        windows.set(key, w);
        if (windows.size > 50_000) {
          for (const [k, v] of windows) if (now - v.start >= opts.windowMs) windows.delete(k);
        }
      }
      w.count++;
      return w.count <= opts.limit;
    },
  };
}
export type RateLimiter = ReturnType<typeof rateLimiter>;
