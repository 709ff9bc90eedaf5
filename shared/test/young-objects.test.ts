/**
 * A hub process keeps the objects of a literal that once outlived young collections in the young
 * generation (young-objects.ts). Each case runs in a process of its own from the built code
 * (`npm run build` first), as V8's flags and its decisions about a literal belong to the process:
 * objects of one literal first outlive a few young collections, then many more are made that die
 * at once. Where V8 pretenures the literal, those are made in the old generation and no young
 * collection runs while they are made.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const SHARED = path.resolve(__dirname, '../dist');

const WORKLOAD = `
const { PerformanceObserver, constants } = require('node:perf_hooks');
const { loadConfig, startHub } = require(${JSON.stringify(SHARED)});
const made = (i) => ({ i, twice: i * 2, next: null });
(async () => {
  if (process.argv[1] === 'hub') {
    const config = loadConfig({ LOG_LEVEL: 'error', LOAD_DEMO_WORLD: 'false', METRICS: 'false' });
    await (await startHub({ ...config, services: [] })).stop();
  }
  let kept = [];
  for (let i = 0; i < 1e6; i++) kept.push(made(i));
  kept = null;
  let young = 0;
  let counting = false;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (counting && entry.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR) young += 1;
  });
  observer.observe({ entryTypes: ['gc'] });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
  await settle();
  counting = true;
  let last;
  for (let i = 0; i < 2e6; i++) last = made(i);
  await settle();
  observer.disconnect();
  console.log(JSON.stringify({ youngCollections: young, last: last.i }));
})();
`;

async function youngCollectionsWhileDying(startsHub: boolean): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', WORKLOAD, startsHub ? 'hub' : 'plain']);
  return (JSON.parse(stdout) as { youngCollections: number }).youngCollections;
}

/**
 * Whether V8 pretenures the literal in a plain process: it decides so at a young collection, and
 * on a loaded machine that decision now and then comes late enough for a run to make a few young
 * collections first, so the premise gets three tries.
 */
async function pretenuresWithoutHub(): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    if ((await youngCollectionsWhileDying(false)) <= 1) return true;
  }
  return false;
}

it('keeps short-lived objects of a literal V8 would pretenure in the young generation', async () => {
  // Without a hub V8 pretenures the literal: the dying objects bypass the young generation.
  expect(await pretenuresWithoutHub()).toBe(true);
  // 2,000,000 objects of 40 bytes or more fill a young generation of at most 32 MiB twice over.
  expect(await youngCollectionsWhileDying(true)).toBeGreaterThanOrEqual(2);
});
