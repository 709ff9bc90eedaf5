/**
 * Where an HTTP benchmark's processes run. On two CPUs or more, the server measured (the hub or
 * its bare baseline) runs on the first CPU and the load generator on the second, through
 * `taskset`: each server then has one CPU to itself whatever the scheduler would have done, which
 * makes a server's figure repeatable from run to run. Elsewhere they run where the system puts them.
 */
const os = require('node:os');
const { spawnSync } = require('node:child_process');

const canPin = os.cpus().length >= 2 && spawnSync('taskset', ['-p', String(process.pid)]).status === 0;

/** The CPU of the server measured and that of the load generator, or undefined where nothing is pinned. */
const SERVER_CPU = canPin ? '0' : undefined;
const LOAD_CPU = canPin ? '1' : undefined;

/** `[file, args]` to spawn `file args` on `cpu` (a CPU list as taskset reads it), or as it is without one. */
function onCpu(cpu, file, args) {
  return cpu === undefined ? [file, args] : ['taskset', ['-c', cpu, file, ...args]];
}

module.exports = { SERVER_CPU, LOAD_CPU, onCpu };
