// Parses a large request body off the server's event loop (server/http/body.ts `readBodyJson`): a 10 MB
// JSON.parse holds the loop for tens of milliseconds, every merchant's request waiting behind it. Plain
// JavaScript, so the same file runs under tsx, vitest and beside the built server.
export default function parseJson(bytes) {
  const text = new TextDecoder().decode(bytes);
  return text.trim() === '' ? {} : JSON.parse(text);
}
