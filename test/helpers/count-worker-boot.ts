/**
 * The count worker from its TypeScript source, for a host made in a test (a built worker is a
 * `.js` under out/): a `.mjs` in `dir` that registers tsx and exports the worker's task. `guard`
 * is JavaScript run at the start of each task, before the count (count-heap.test.ts makes the
 * worker die there).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../..');

export function countWorkerBoot(dir: string, guard = ''): string {
  const file = join(dir, 'count-boot.mjs');
  writeFileSync(
    file,
    [
      "import v8 from 'node:v8';",
      `import { register } from ${JSON.stringify(join(root, 'node_modules/tsx/dist/esm/api/index.mjs'))};`,
      'register();',
      `const run = (await import(${JSON.stringify(join(root, 'src/main/host/count-worker.ts'))})).default;`,
      `export default async (r) => {\n${guard}\n  return run(r);\n};`,
      // v8 is there for a guard that reads the heap's limit.
      'void v8;',
      '',
    ].join('\n'),
  );
  return file;
}
