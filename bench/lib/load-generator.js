/**
 * HTTP load from a process of its own (autocannon's command line), so that the load generator
 * never shares an event loop with the server it measures.
 */
const path = require('node:path');
const { execFile } = require('node:child_process');
const { LOAD_CPU, onCpu } = require('./cpus');

const AUTOCANNON = path.join(path.dirname(require.resolve('autocannon/package.json')), 'autocannon.js');

/**
 * `connections` connections on `url` for `seconds`, after a warm-up of `warmupSeconds` at the
 * same load, from the load generator's CPU (cpus.js); resolves to autocannon's result.
 */
function loadFromProcess(url, { headers = {}, connections = 50, seconds = 10, warmupSeconds = 0 } = {}) {
  const args = [AUTOCANNON, '--json', '--connections', String(connections), '--duration', String(seconds)];
  for (const [name, value] of Object.entries(headers)) args.push('--headers', `${name}=${value}`);
  if (warmupSeconds > 0) args.push('--warmup', '[', '-c', String(connections), '-d', String(warmupSeconds), ']');
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(...onCpu(LOAD_CPU, process.execPath, args), { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`autocannon failed: ${err.message}\n${stderr}`));
      // With a warm-up, autocannon prints the warm-up's result first: the measured run is the last line.
      try {
        resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
      } catch (parseError) {
        reject(new Error(`autocannon printed no result: ${parseError.message}\n${stdout}${stderr}`));
      }
    });
  });
}

module.exports = { loadFromProcess };
