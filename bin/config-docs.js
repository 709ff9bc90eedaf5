#!/usr/bin/env node
/**
 * Writes the README's configuration table from the schema of every environment variable
 * (`CONFIG_VARIABLES` in shared/src/config.ts): `npm run docs:config`.
 */
const fs = require('node:fs');
const path = require('node:path');
const { withConfigurationTable } = require('../shared/dist');

const readme = path.join(__dirname, '..', 'README.md');
fs.writeFileSync(readme, withConfigurationTable(fs.readFileSync(readme, 'utf8')));
