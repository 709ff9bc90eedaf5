/**
 * The tests' jest environment: Node's, plus a sink for the log lines of the hubs a test starts
 * (test-logger.ts). A passing test prints none of them, so the errors a test provokes on purpose
 * stay out of the output; a failing test prints all it logged, and what it logs after the failure.
 */
const { TestEnvironment } = require('jest-environment-node');

class QuietEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.lines = [];
    this.failed = false;
    this.global.__hubTestLog = {
      write: (line) => (this.failed ? process.stderr.write(`${line}\n`) : this.lines.push(line)),
    };
  }

  handleTestEvent(event) {
    if (event.name === 'test_start') {
      // What set-up logged is kept for a failing hook only; each test starts afresh.
      this.lines = [];
      this.failed = false;
    } else if (event.name === 'test_fn_failure' || event.name === 'hook_failure') {
      const where = event.test ? event.test.name : event.hook ? event.hook.type : 'a hook';
      if (this.lines.length)
        process.stderr.write(`\nThe hub's log up to the failure of "${where}":\n${this.lines.join('\n')}\n`);
      this.lines = [];
      this.failed = true;
    } else if (event.name === 'test_done') {
      this.lines = [];
      this.failed = false;
    }
  }
}

module.exports = QuietEnvironment;
