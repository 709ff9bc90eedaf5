/**
 * What every benchmark in bench/ shares, so that `npm run bench` (bench/run.js) can run them all
 * and read their figures the same way. The convention (also in bench/README.md):
 *
 * - A benchmark is `bench/<name>.js`, run as `node bench/<name>.js [--quick] [its own arguments]`
 *   after `npm run build`. It measures the hub's path beside a baseline doing the same work
 *   without the hub (a raw SQL loop, a bare `node:http` server, a raw NATS request) in the same
 *   run, because the machine's load moves absolute figures far more than it moves their ratio.
 * - `--quick` shrinks it to a second or two of measuring (small data, short runs): enough to
 *   prove it still starts and answers, which CI checks; its figures mean little.
 * - It ends with one JSON line on stdout, printed by `runBenchmark`:
 *   `{ "bench", "quick", "machine", "ratios", "figures" }`, where `machine` says when and on
 *   what it ran (date, Node, CPUs, memory, the load average at its start and end). `ratios` maps a name to the hub's
 *   figure as a share of its baseline's, oriented so that 1 is "as fast as the baseline" and
 *   lower is slower (requests per second: hub / baseline; a latency: baseline / hub).
 *   `figures` holds everything measured. Anything printed before that line is for people.
 */
const os = require('node:os');

const quick = process.argv.includes('--quick');
/** The benchmark's own positional arguments, flags left out. */
const args = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));

const loadAverage = () => os.loadavg().map((value) => +value.toFixed(1));

/** The value at percentile `p` of an ascending list. */
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** The hub's figure over the baseline's, rounded to three places (pass latencies baseline first). */
const ratio = (numerator, denominator) => +(numerator / denominator).toFixed(3);

/**
 * Runs `main` (which resolves to `{ ratios, figures }`), prints the closing JSON line and exits:
 * 0 when it finished, 1 when it threw or gave no ratio. Exiting here means a handle a benchmark
 * leaves open cannot keep the runner waiting.
 */
function runBenchmark(name, main) {
  const loadAtStart = loadAverage();
  main()
    .then(({ ratios, figures }) => {
      const valid = Object.keys(ratios).length > 0 && Object.values(ratios).every((v) => Number.isFinite(v) && v > 0);
      if (!valid) throw new Error(`${name} gave no usable ratio: ${JSON.stringify(ratios)}`);
      const machine = {
        date: new Date().toISOString(),
        node: process.version,
        cpus: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown'}`,
        memoryGiB: Math.round(os.totalmem() / 2 ** 30),
        loadAverageAtStart: loadAtStart,
        loadAverageAtEnd: loadAverage(),
      };
      console.log(JSON.stringify({ bench: name, quick, machine, ratios, figures }));
      process.exit(0);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}

module.exports = { quick, args, loadAverage, percentile, ratio, runBenchmark };
