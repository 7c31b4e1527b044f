/**
 * Import rules `npm run lint` enforces: no circles anywhere in src/, and src/core (the engine) imports
 * nothing from the hosts or from src/shared (the contract is built on the engine, never the reverse).
 * docs/architecture.md draws the layers.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle makes load order matter and the layers meaningless.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-is-pure',
      severity: 'error',
      comment: 'src/core imports nothing from src/shared, src/main, src/renderer, src/preload or src/cli.',
      from: { path: '^src/core/' },
      to: { path: '^src/(shared|main|renderer|preload|cli)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '(^|/)(out|dist|node_modules)/' },
  },
};
