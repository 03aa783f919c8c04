/**
 * Test helpers for the day's sums of maker–checker (doors.ts). Sessions last hours, so a test cannot move
 * its clock a whole day; it moves the decisions back instead.
 */
import { sql } from 'drizzle-orm';
import { decisionsAlone } from '../../db/schema.ts';
import type { TestServer } from '../../test/harness.ts';
import { dailyWindowMs } from './doors.ts';

/** Moves every decision taken alone so far out of the day's sums (a day ago and a minute). */
export async function forgetDayDecisions(s: Pick<TestServer, 'db'>): Promise<void> {
  await s.db
    .update(decisionsAlone)
    .set({ at: sql`${decisionsAlone.at} - make_interval(secs => ${(dailyWindowMs + 60_000) / 1000})` });
}
