// Two projects: `embedded` needs nothing but Node (PGlite, in-process transport);
// `infra` runs against the Postgres, NATS, Redis and RabbitMQ servers.
const common = {
  rootDir: __dirname,
  // Node's, printing the log of the hubs a test starts only when it fails.
  testEnvironment: '<rootDir>/test/support/quiet-environment.js',
  // isolatedModules: transpile each file alone (fast); `npm run lint` type-checks every test file
  // once through tsconfig.test.json, rather than each jest worker checking its own.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json', diagnostics: false }] },
  moduleNameMapper: {
    '^@hub/shared$': '<rootDir>/shared/src',
    '^@hub/shared/(.*)$': '<rootDir>/shared/src/$1',
    '^@hub/cli$': '<rootDir>/cli/src',
    '^@hub/([a-z-]+)$': '<rootDir>/services/$1/src/$1.service.ts',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
};
const roots = ['<rootDir>/shared/test', '<rootDir>/services', '<rootDir>/cli/test', '<rootDir>/test'];
module.exports = {
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: 'embedded',
      roots,
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: ['\\.infra\\.test\\.ts$', '/node_modules/', '/dist/'],
    },
    {
      ...common,
      displayName: 'infra',
      roots,
      testMatch: ['**/*.infra.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    },
  ],
};
