/** Builds the server's bundle (main.mjs, its workers and migrations) into `out`: see server-bundle.mjs. */
export function buildServer(out: string): Promise<void>;
