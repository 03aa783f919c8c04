// The statement worker where the server runs as TypeScript (`npm run dev`, vitest): tsx compiles
// statementWorker.ts for this thread. The built server has dist/server/statementWorker.mjs instead.
import { tsImport } from 'tsx/esm/api';

const worker = await tsImport('./statementWorker.ts', import.meta.url);
export default worker.default;
