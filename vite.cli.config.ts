/**
 * Builds the `ctxscope` command (and the workers it starts) for Node into out/cli/.
 * Dependencies stay external (node_modules), so better-sqlite3 loads its Node build.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  build: {
    ssr: true,
    outDir: 'out/cli',
    emptyOutDir: true,
    target: 'node20',
    sourcemap: true,
    rollupOptions: {
      input: {
        index: resolve(root, 'src/cli/index.ts'),
        'import-worker': resolve(root, 'src/main/host/import-worker.ts'),
        'batch-worker': resolve(root, 'src/cli/batch-worker.ts'),
        'inspect-worker': resolve(root, 'src/cli/inspect-worker.ts'),
        'bulk-worker': resolve(root, 'src/main/count/bulk-worker.ts'),
        'count-worker': resolve(root, 'src/main/host/count-worker.ts'),
        'replay-worker': resolve(root, 'src/main/host/replay-worker.ts'),
        'tune-worker': resolve(root, 'src/main/tune/tune-worker.ts'),
        'export-worker': resolve(root, 'src/main/export/export-worker.ts'),
        'fleet-worker': resolve(root, 'src/main/fleet/fleet-worker.ts'),
      },
      output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
    },
  },
});
