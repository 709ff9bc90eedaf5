#!/usr/bin/env node
/**
 * Runs every benchmark in bench/ one after another: `npm run bench` (full runs, minutes each),
 * `npm run bench -- --quick` (a second or two of measuring each; part of CI, so a benchmark that
 * stops working fails the build), `npm run bench -- booking lookups-routing` (only those).
 * `--out <file>` also writes each benchmark's closing JSON line, or its failure, to a file.
 * `--pages` writes the results page of each benchmark that ran, `bench/results/<name>.md`
 * (bench/lib/pages.js), replacing the last one; without it nothing in the tree changes, so CI's
 * quick run never overwrites the recorded figures.
 *
 * Every `bench/<name>.js` is a benchmark: a new one is run without being listed here. Each follows
 * the convention in bench/lib/benchmark.js: it measures the hub beside a baseline in the same run
 * and ends with one JSON line `{ bench, quick, machine, ratios, figures }`, where each ratio is the
 * hub's figure as a share of its baseline's (1: as fast as the baseline). A benchmark fails when
 * it exits non-zero, ends without that line, or (quick runs) takes longer than QUICK_LIMIT_MS.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawn } = require('node:child_process');
const { writePages } = require('./lib/pages');

/** A quick run that takes longer than this has hung; full runs are not limited. */
const QUICK_LIMIT_MS = 5 * 60_000;

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const pages = argv.includes('--pages');
const outIndex = argv.indexOf('--out');
const outFile = outIndex >= 0 ? argv[outIndex + 1] : undefined;
const wanted = argv.filter((arg, i) => !arg.startsWith('--') && (outIndex < 0 || i !== outIndex + 1));

const available = fs
  .readdirSync(__dirname)
  .filter((file) => file.endsWith('.js') && file !== path.basename(__filename))
  .map((file) => file.slice(0, -'.js'.length))
  .sort();
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length) {
  console.error(`No benchmark named ${unknown.join(', ')} (there are: ${available.join(', ')})`);
  process.exit(2);
}
const names = wanted.length ? wanted : available;
const at = commit();

/** The benchmark running now: its group leaves with the runner, as it would share its terminal's signals. */
let running;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (running && running.exitCode === null) process.kill(-running.pid, 'SIGKILL');
    process.exit(1);
  });
}

/** Runs one benchmark, passing its output through, and resolves to its closing line or its failure. */
function runOne(name) {
  return new Promise((resolve) => {
    const started = Date.now();
    // A group of its own, so that the limit ends the hub processes it started as well: they hold
    // its output open, and the run would wait on them forever.
    const child = spawn(process.execPath, [path.join(__dirname, `${name}.js`), ...(quick ? ['--quick'] : [])], {
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    running = child;
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      process.stdout.write(chunk);
    });
    const limit = quick ? setTimeout(() => process.kill(-child.pid, 'SIGKILL'), QUICK_LIMIT_MS) : undefined;
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      const seconds = +((Date.now() - started) / 1000).toFixed(1);
      const failed = (error) =>
        resolve({
          bench: name,
          quick,
          ok: false,
          seconds,
          error,
          date: new Date().toISOString(),
          loadAverage: os.loadavg(),
        });
      if (signal) return failed(`killed by ${signal}${quick ? ` after the ${QUICK_LIMIT_MS / 1000} s limit` : ''}`);
      if (code !== 0) return failed(`exited with code ${code}`);
      const last = stdout.trimEnd().split('\n').at(-1) ?? '';
      let report;
      try {
        report = JSON.parse(last);
      } catch {
        return failed('did not end with a JSON line');
      }
      if (report.bench !== name || typeof report.ratios !== 'object' || report.ratios === null)
        return failed('its last line is not a benchmark report ({ bench, ratios, ... })');
      resolve({ ...report, ok: true, seconds, ...(at ? { commit: at } : {}) });
    });
  });
}

/** The commit the benchmarks ran at, for the pages; none outside a git checkout. */
function commit() {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: __dirname,
      encoding: 'utf8',
      stdio: 'pipe',
    }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: __dirname,
      encoding: 'utf8',
      stdio: 'pipe',
    }).trim();
    return changed ? `${head} with changes` : head;
  } catch {
    return undefined;
  }
}

(async () => {
  const results = [];
  for (const name of names) {
    console.log(`\n=== bench/${name}.js${quick ? ' --quick' : ''}`);
    results.push(await runOne(name));
  }
  if (outFile) fs.writeFileSync(outFile, results.map((result) => JSON.stringify(result)).join('\n') + '\n');
  if (pages) for (const file of writePages(results)) console.log(`wrote ${path.relative(process.cwd(), file)}`);
  console.log('\n| benchmark | seconds | result | ratios to baseline |\n|---|---:|---|---|');
  for (const { bench, seconds, ok, error, ratios } of results) {
    const shown = ok ? Object.entries(ratios).map(([key, value]) => `${key} ${value}`) : [];
    console.log(`| ${bench} | ${seconds} | ${ok ? 'ok' : `FAILED: ${error}`} | ${shown.join(', ')} |`);
  }
  const failed = results.filter((result) => !result.ok).length;
  console.log(`\n${results.length - failed} benchmarks ran, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})();
