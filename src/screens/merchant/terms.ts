/** How a merchant's terms read on screen. */
import { thousands } from '../../lib/format.ts';

/** `2.5` → `2.5 %`. */
export const percent = (rate: string) => `${rate} %`;

/** `D0` stays, `T3` reads `T+3` as the business writes it. */
export const cycleLabel = (cycle: string) => (cycle.startsWith('T') ? `T+${cycle.slice(1)}` : cycle);

/** `1.00` and `50000.00` → `1.00 – 50,000.00`. */
export const limitsLabel = (min: string, max: string) => `${thousands(min)} – ${thousands(max)}`;

/** Splits a pasted whitelist on commas, semicolons (also their Chinese forms), spaces and new lines. */
export const whitelistOf = (text: string) =>
  text
    .split(/[\s,，;；、]+/)
    .map((s) => s.trim())
    .filter(Boolean);
