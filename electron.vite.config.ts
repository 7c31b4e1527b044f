import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { withoutCspMeta } from './src/main/app/csp';

const root = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(root, 'src/main/index.ts'),
          'import-worker': resolve(root, 'src/main/host/import-worker.ts'),
          'bulk-worker': resolve(root, 'src/main/count/bulk-worker.ts'),
          'count-worker': resolve(root, 'src/main/host/count-worker.ts'),
          'replay-worker': resolve(root, 'src/main/host/replay-worker.ts'),
          'tune-worker': resolve(root, 'src/main/tune/tune-worker.ts'),
          'export-worker': resolve(root, 'src/main/export/export-worker.ts'),
          'fleet-worker': resolve(root, 'src/main/fleet/fleet-worker.ts'),
        },
        output: { format: 'es', entryFileNames: '[name].js' },
      },
    },
  },
  preload: {
    plugins: [externalizeDepsPlugin({ exclude: ['zod'] })],
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(root, 'src/preload/index.ts') },
        // Sandboxed preloads must be CommonJS.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src/renderer',
    // The dev server's page drops the CSP <meta> (src/main/app/csp.ts); the built page keeps it.
    plugins: [react(), { name: 'ctxscope-dev-csp', apply: 'serve', transformIndexHtml: withoutCspMeta }],
    build: {
      outDir: 'out/renderer',
      // Minified: the page's script is parsed and compiled before the first chart can be drawn
      // (2.5 MB as written, about a third of it minified; docs/benchmarks.md "Where it stands").
      minify: 'esbuild',
      rollupOptions: { input: { index: resolve(root, 'src/renderer/index.html') } },
    },
  },
});
