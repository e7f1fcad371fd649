// The import cycle check of `npm run lint` (dependency-cruiser): no module of src/ may import,
// directly or through others, a module that imports it. Type-only imports count too (a cycle of
// types is still two modules that cannot be read, changed or moved apart), and so do dynamic ones.
// The folders' layering (which folder may import which) is eslint.config.js's.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module of src/ is part of an import cycle: move what both sides need into a module of its own (or into the lower one).',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
