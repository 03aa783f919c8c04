/** The whitelist as typed: one address or range per line, or separated by commas (also "，") or spaces. */
export function parseWhitelist(text: string): string[] {
  return [...new Set(text.split(/[\s,，]+/).filter(Boolean))];
}
