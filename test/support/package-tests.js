#!/usr/bin/env node
/**
 * One workspace package's tests, run with the root jest configuration: each package's `test` and
 * `test:infra` scripts call this, and lerna runs those scripts package by package in dependency
 * order (`npm test`, `npm run test:infra`). Usage: `package-tests.js <embedded|infra> [jest args]`.
 *
 * With HUB_TEST_RESULTS set to a directory, each package writes its jest JSON report there
 * (`<project>-<package>.json`), which CI sums into one count.
 */
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const [project, ...jestArgs] = process.argv.slice(2);
if (project !== 'embedded' && project !== 'infra') {
  console.error('usage: package-tests.js <embedded|infra> [jest args]');
  process.exit(2);
}
const root = path.resolve(__dirname, '../..');
const packageDir = path.relative(root, process.cwd()) || '.';
const packageName = require(path.join(process.cwd(), 'package.json')).name.replace(/^@hub\//, '');

const args = [
  '--experimental-vm-modules',
  path.join(root, 'node_modules/jest/bin/jest.js'),
  '--config',
  path.join(root, 'jest.config.js'),
  '--selectProjects',
  project,
  // The package's own directory only (a pattern on absolute paths, anchored at the root).
  '--testPathPatterns',
  `^${escapeRegExp(path.join(root, packageDir))}/`,
  '--passWithNoTests',
];
if (project === 'infra') args.push('--runInBand');
if (process.env.HUB_TEST_RESULTS) {
  args.push('--json', `--outputFile=${path.join(process.env.HUB_TEST_RESULTS, `${project}-${packageName}.json`)}`);
}
// jest needs VM modules, which Node announces as experimental in every process it starts.
const env = {
  ...process.env,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --disable-warning=ExperimentalWarning`.trim(),
};
const run = spawnSync(process.execPath, [...args, ...jestArgs], { cwd: root, stdio: 'inherit', env });
process.exit(run.status ?? 1);

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
