#!/usr/bin/env node
// Merges a fragment of messages into both locale files: `node scripts/locale-merge.mjs fragment.json`,
// where the fragment is `{ "en": {...}, "zh_CN": {...} }` with the same key paths. Existing keys are
// overwritten, others kept; the files are rewritten in one step each, so several people (or helpers)
// can add keys without editing the same JSON by hand. Refuses a fragment whose two sides differ.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fragment = JSON.parse(readFileSync(process.argv[2], 'utf8'));

const keys = (o, prefix = '') =>
  Object.entries(o).flatMap(([k, v]) =>
    v && typeof v === 'object' ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
const en = keys(fragment.en ?? {}).sort();
const zh = keys(fragment.zh_CN ?? {}).sort();
const missing = [...en.filter((k) => !zh.includes(k)), ...zh.filter((k) => !en.includes(k))];
if (missing.length) {
  console.error(`keys present in one language only: ${missing.join(', ')}`);
  process.exit(1);
}

function merge(into, from) {
  for (const [k, v] of Object.entries(from)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      if (!into[k] || typeof into[k] !== 'object') into[k] = {};
      merge(into[k], v);
    } else into[k] = v;
  }
}

for (const lang of ['en', 'zh_CN']) {
  const file = join(root, 'locales', `${lang}.json`);
  const messages = JSON.parse(readFileSync(file, 'utf8'));
  merge(messages, fragment[lang]);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(messages, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
console.log(`merged ${en.length} keys into en and zh_CN`);
