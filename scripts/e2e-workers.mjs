// How many Playwright workers (and e2e servers, one each) run the specs: E2E_WORKERS, else 2. Read by
// playwright.config.ts and by scripts/test.mjs, which finds that many free ports before the run.
export const e2eWorkers = () => Math.max(1, Number(process.env.E2E_WORKERS || 2));
