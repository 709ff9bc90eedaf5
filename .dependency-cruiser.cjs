// The import graph's rules (`npm run lint:imports`): no module imports itself through others,
// and the floors stay in order: shared knows no service, a service knows no other service nor
// the command that runs them all.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: move what both sides need to where it belongs.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-knows-no-service',
      severity: 'error',
      comment: 'shared is the ground floor: the services and the command build on it, never the reverse.',
      from: { path: '^shared/' },
      to: { path: '^(services|cli)/' },
    },
    {
      name: 'services-stay-apart',
      severity: 'error',
      comment: 'A service asks another through its actions, never by importing its code.',
      from: { path: '^services/([^/]+)/src/' },
      to: { path: '^(services/|cli/)', pathNot: '^services/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports close circles as much as any other.
    tsPreCompilationDeps: true,
    // `@hub/shared` and `@hub/cli` resolve to their sources, so the graph needs no build.
    tsConfig: { fileName: 'tsconfig.test.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
