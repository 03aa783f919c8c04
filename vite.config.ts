import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console builds into dist/console, which the server serves at `/`; in dev, /api goes to the server.
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist/console',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 300,
  },
  server: {
    port: 5173,
    proxy: { '/api': { target: `http://127.0.0.1:${process.env.PORT ?? 8080}`, changeOrigin: false } },
  },
});
