#!/usr/bin/env node
// The `hub` command; see `hub --help` or the README.
require('../cli/dist/cli')
  .main(process.argv.slice(2))
  .catch((err) => {
    console.error(err && err.message ? err.message : err);
    // A refused request names its fields, as the API's answer does.
    const details = err && err.data && err.data.details;
    if (details && typeof details === 'object') {
      for (const [field, messages] of Object.entries(details))
        console.error(`  ${field}: ${[].concat(messages).join(', ')}`);
    }
    process.exit(err && err.name === 'UsageError' ? 2 : 1);
  });
