/** What both engines' openers share: the migrations, and how `Database.raw` names and binds a statement. */
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/** A short, stable statement name for a text (PostgreSQL keeps prepared statements per connection). */
const statementNames = new Map<string, string>();
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `s_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    if (statementNames.size >= 2_000) statementNames.clear();
    statementNames.set(text, name);
  }
  return name;
}

/** Parameters as the text PostgreSQL reads them. */
export function paramText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
