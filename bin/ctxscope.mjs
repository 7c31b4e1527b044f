#!/usr/bin/env node
// The `ctxscope` bin: runs the built CLI (out/cli/index.js, made by `npm run build`); from a
// source checkout that has not been built yet it runs the TypeScript directly through tsx.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { nodeProblem, readPackage } from '../scripts/node-check.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const nodeTooOld = nodeProblem('cli', process.version, readPackage());
if (nodeTooOld) {
  process.stderr.write(nodeTooOld + '\n');
  process.exit(1);
}
const built = join(root, 'out', 'cli', 'index.js');
const args = process.argv.slice(2);

if (existsSync(built)) {
  process.env.CTXSCOPE_NO_MAIN = '1';
  const { main } = await import(pathToFileURL(built).href);
  const code = await main(args);
  if (code !== 0 || !args.includes('serve')) process.exitCode = code;
} else {
  const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  if (!existsSync(tsx)) {
    process.stderr.write('ctxscope: not built yet — run `npm run build` in ' + root + '\n');
    process.exit(1);
  }
  const r = spawnSync(process.execPath, [tsx, join(root, 'src', 'cli', 'index.ts'), ...args], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
