#!/usr/bin/env node
// The `hub` command; see `hub --help` or the README.
require('../shared/dist/cli')
  .main(process.argv.slice(2))
  .catch((err) => {
    console.error(err && err.message ? err.message : err);
    process.exit(1);
  });
