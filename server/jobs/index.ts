/**
 * The server's background work: the callback worker and periodic jobs. Each periodic job runs alone
 * (never overlapping itself), reads "now" from deps.clock, and is stopped before the database closes.
 * A new job is one more entry in `periodicJobs`.
 */
import { isDatabaseUnavailable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { pruneNonces } from '../gateway/app.ts';
import { errorForLog } from '../lib/logger.ts';
import { ensureComingOrderPartitions } from '../modules/orders/partitions.ts';
import { expireDuePayins } from '../modules/payin/expiry.ts';
import { runSimulatorAuto } from '../modules/payin/simulator.ts';
import { autoSettleSimulatorPayouts, submitAllDuePayouts } from '../modules/payout/jobs.ts';
import { runDailyTnSettlement } from '../modules/settlement/tn.ts';
import { defaultFeedPollMs, pollStatementFeeds } from '../modules/statementFeed/service.ts';
import { sendDueTelegram } from '../modules/telegram/sender.ts';
import { runTelegramChecks } from '../modules/telegram/service.ts';
import { startWebhookWorker } from './webhooks.ts';

export interface PeriodicJob {
  name: string;
  /** Pause between the end of one run and the start of the next (or read from the settings). */
  everyMs: number | ((deps: Deps) => number);
  run(deps: Deps): Promise<unknown>;
}

export const periodicJobs: PeriodicJob[] = [
  { name: 'payin-expiry', everyMs: 5_000, run: (deps) => expireDuePayins(deps) },
  { name: 'simulator-payin-auto', everyMs: 1_000, run: (deps) => runSimulatorAuto(deps) },
  { name: 'nonce-prune', everyMs: 60_000, run: pruneNonces },
  { name: 'payout-submit', everyMs: 1_000, run: (deps) => submitAllDuePayouts(deps) },
  { name: 'simulator-payout-auto', everyMs: 1_000, run: (deps) => autoSettleSimulatorPayouts(deps) },
  // The daily T+N settlement run, once a business day, at the first wake-up from `tn_run_time` on (a
  // server down at that time runs it when it comes back).
  { name: 'tn-settlement-run', everyMs: 30_000, run: (deps) => runDailyTnSettlement(deps) },
  // Telegram alerts: recorded deliveries sent (and retried) outside any transaction, and once a minute
  // the alerts that are states rather than moments (stuck payouts, low wallets, falling channels).
  { name: 'telegram-send', everyMs: 2_000, run: (deps) => sendDueTelegram(deps) },
  { name: 'telegram-checks', everyMs: 60_000, run: (deps) => runTelegramChecks(deps) },
  // The orders' monthly partitions, this month and the next ones (at start, then every hour).
  { name: 'order-partitions', everyMs: 3_600_000, run: (deps) => ensureComingOrderPartitions(deps) },
  // The receiving accounts' bank feeds (SFTP), each polled every `STATEMENT_FEED_POLL_MS` (a lease on the
  // feed's row keeps several processes from polling one feed at once).
  {
    name: 'statement-feed',
    everyMs: (deps) => deps.config.statementFeedPollMs ?? defaultFeedPollMs,
    run: (deps) => pollStatementFeeds(deps),
  },
];

export interface Jobs {
  /** Delivers due callbacks now instead of at the next poll. */
  wakeWebhooks(): void;
  /** Stops every job, waiting for runs in progress. */
  stop(): Promise<void>;
}

export function startJobs(
  deps: Deps,
  opts: { jobs?: readonly PeriodicJob[]; webhookPollMs?: number } = {},
): Jobs {
  const webhooks = startWebhookWorker(deps, { pollMs: opts.webhookPollMs ?? 1000 });
  let stopped = false;
  const sleepers = new Set<() => void>();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      sleepers.add(done);
    });
  const loops = (opts.jobs ?? periodicJobs).map(async (job) => {
    while (!stopped) {
      try {
        await job.run(deps);
      } catch (err) {
        // The database restarting or failing over: the next run picks the work up again.
        if (isDatabaseUnavailable(err))
          deps.logger.warn({ job: job.name, err: errorForLog(err) }, 'job stopped: database unavailable');
        else deps.logger.error({ job: job.name, err: errorForLog(err) }, 'job failed');
      }
      if (!stopped) await sleep(typeof job.everyMs === 'number' ? job.everyMs : job.everyMs(deps));
    }
  });
  return {
    wakeWebhooks: webhooks.wake,
    async stop() {
      stopped = true;
      for (const wake of [...sleepers]) wake();
      await Promise.all([webhooks.stop(), ...loops]);
    },
  };
}
