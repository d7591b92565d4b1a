import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The browser UI of the demo. Vite 8 transforms TSX with Oxc, so no React plugin is needed;
// the output goes to apps/demo/dist/web, which `startWebServer` serves.
export default defineConfig({
  // Always the production React build: vitest's global setup runs this build with NODE_ENV=test.
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  // development: false keeps the production JSX runtime even when NODE_ENV is 'test' (vitest's global setup).
  oxc: { jsx: { runtime: 'automatic', development: false } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 600,
  },
  logLevel: 'warn',
});
