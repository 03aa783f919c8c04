import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The bank channel's public pay page (pay/): plain TypeScript and CSS, no framework, so a payer on a slow
// phone loads a few kilobytes (≤ 30 KB gzip, checked by server/modules/pay/bundle.test.ts). It builds into
// dist/pay beside the console; the server serves it at /pay/<orderNo> with the order's language and the
// `pay.*` strings written into the HTML.
export default defineConfig({
  root: fileURLToPath(new URL('./pay', import.meta.url)),
  base: '/pay/',
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL('./dist/pay', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    modulePreload: { polyfill: false },
  },
});
