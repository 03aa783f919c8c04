// The database thread where the server runs as TypeScript (`npm run dev`, vitest): tsx compiles
// pgliteThread.ts for this thread. The built server has dist/server/pgliteThread.mjs instead.
import { tsImport } from 'tsx/esm/api';

await tsImport('./pgliteThread.ts', import.meta.url);
