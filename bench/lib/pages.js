/**
 * A benchmark's results page, `bench/results/<name>.md`, written from its closing JSON line (see
 * benchmark.js): what it measures (the benchmark file's opening comment), its latest ratios and
 * figures with the machine, its load and the date, and how to run it again. A page is replaced
 * whole by the next run, never appended to: the figures of earlier runs are in git's history.
 * `bench/README.md` lists the pages between its markers.
 *
 * `npm run bench -- --pages` writes the pages of the benchmarks it ran; `node bench/lib/pages.js
 * <file>...` writes them from the lines a run saved with `--out`.
 */
const fs = require('node:fs');
const path = require('node:path');

const BENCH_DIR = path.join(__dirname, '..');
const RESULTS_DIR = path.join(BENCH_DIR, 'results');
const INDEX = path.join(BENCH_DIR, 'README.md');
const INDEX_START = '<!-- pages: written by bench/lib/pages.js -->';
const INDEX_END = '<!-- end of pages -->';

/** The opening comment of `bench/<name>.js` as paragraphs of text, its "Run ..." part apart. */
function describe(name) {
  const source = fs.readFileSync(path.join(BENCH_DIR, `${name}.js`), 'utf8');
  const comment = /\/\*\*([\s\S]*?)\*\//.exec(source)?.[1] ?? '';
  const text = comment
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
  const run = text.search(/^(Run|`--quick`|The servers|The Postgres server)/m);
  return run < 0
    ? { measures: text, running: '' }
    : { measures: text.slice(0, run).trim(), running: text.slice(run).trim() };
}

const cell = (value) => String(value).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const isPlain = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const isScalar = (value) => value === null || typeof value !== 'object';

/** An object's scalars by their dotted paths; a list of scalars is one value, a list of records its count. */
function flatten(value, at = '', into = {}) {
  for (const [key, item] of Object.entries(value)) {
    const where = at ? `${at}.${key}` : key;
    if (isScalar(item)) into[where] = item;
    else if (Array.isArray(item) && item.every(isScalar)) into[where] = item.join(', ');
    // A list of records (each slow request, say) is counted: the table is for the cases' figures.
    else if (Array.isArray(item)) into[where] = `${item.length} entries`;
    else flatten(item, where, into);
  }
  return into;
}

/**
 * `figures` as markdown. An object or list whose entries are all objects (the same measurement of
 * several cases) becomes a table, one row per figure and one column per case when the figures
 * outnumber the cases, the other way round otherwise; every other figure is a row of a list of
 * paths and values.
 */
function figuresMarkdown(figures) {
  const tables = [];
  const scalars = [];
  const table = (title, entries) => {
    const cases = entries.map(([key, item]) => {
      const labels = Array.isArray(entries.source) ? [] : [key];
      const named = Object.values(item).filter((field) => typeof field === 'string');
      return [labels.concat(named).join(', ') || key, flatten(item)];
    });
    const figureNames = [...new Set(cases.flatMap(([, flat]) => Object.keys(flat)))];
    const row = (cells) => `| ${cells.map(cell).join(' | ')} |`;
    const rule = (count) => `|---|${Array.from({ length: count }, () => '---:').join('|')}|`;
    tables.push('', `\`${title}\`:`, '');
    if (figureNames.length > cases.length) {
      tables.push(row(['', ...cases.map(([label]) => label)]), rule(cases.length));
      for (const name of figureNames) tables.push(row([name, ...cases.map(([, flat]) => flat[name] ?? '')]));
    } else {
      tables.push(row(['', ...figureNames]), rule(figureNames.length));
      for (const [label, flat] of cases) tables.push(row([label, ...figureNames.map((name) => flat[name] ?? '')]));
    }
  };
  const walk = (value, at) => {
    const entries = Array.isArray(value) ? value.map((item, i) => [String(i + 1), item]) : Object.entries(value);
    if (Array.isArray(value)) entries.source = value;
    if (at && entries.length > 0 && entries.every(([, item]) => isPlain(item))) return table(at, entries);
    if (Array.isArray(value) && value.every(isScalar)) return scalars.push([at, value.join(', ')]);
    for (const [key, item] of entries) {
      const where = at ? `${at}.${key}` : key;
      if (isScalar(item)) scalars.push([where, item]);
      else walk(item, where);
    }
  };
  walk(figures, '');
  const list = scalars.length
    ? ['| figure | value |', '|---|---:|', ...scalars.map(([key, value]) => `| \`${cell(key)}\` | ${cell(value)} |`)]
    : [];
  return [...list, ...tables].join('\n');
}

function loadText(machine) {
  const [start, end] = [machine.loadAverageAtStart, machine.loadAverageAtEnd];
  const cpus = Number.parseInt(machine.cpus, 10);
  const loaded = Math.max(start?.[0] ?? 0, end?.[0] ?? 0) > cpus;
  const said = `Load average (1, 5, 15 minutes): ${start?.join(', ')} at the start, ${end?.join(', ')} at the end.`;
  return loaded
    ? `${said} The machine was shared and busier than its ${cpus} CPUs: absolute figures are low and noisy; the ratios, measured beside their baseline in the same run, are what to compare.`
    : said;
}

/** What a failed run leaves on a page that has no figures yet. */
function failureLines(report) {
  const date = report.date ? `, ${report.date.slice(0, 16).replace('T', ' ')} UTC` : '';
  const load = report.loadAverage
    ? ` (load average at the end: ${report.loadAverage.map((v) => +v.toFixed(1)).join(', ')})`
    : '';
  return [`None yet. Its last ${report.quick ? 'quick ' : ''}run${date}${date && ','} failed: ${report.error}${load}.`];
}

/** The figures of a run: when and where it ran, its ratios and everything it measured. */
function figureLines(report) {
  const { quick, machine, ratios, figures } = report;
  const date = machine.date ? machine.date.slice(0, 16).replace('T', ' ') + ' UTC' : 'An unrecorded date';
  return [
    quick
      ? `**A quick run** (\`--quick\`: small data, a second or two of measuring): these figures show that it runs, not how fast the hub is.`
      : 'A full run, at the default size.',
    '',
    `${date}${report.commit ? `, at ${report.commit}` : ''}${report.seconds ? `, ${report.seconds} s` : ''}. ${machine.cpus}${machine.memoryGiB ? `, ${machine.memoryGiB} GiB` : ''}, Node ${machine.node}. ${loadText(machine)}`,
    '',
    'Ratios to the baseline (1: as fast as the baseline; lower: slower):',
    '',
    '| ratio | value |',
    '|---|---:|',
    ...Object.entries(ratios).map(([key, value]) => `| \`${cell(key)}\` | ${value} |`),
    '',
    'Figures:',
    '',
    figuresMarkdown(figures),
  ];
}

/** The page of one benchmark's report: its closing JSON line as run.js records it, or its failure. */
function pageOf(report) {
  const { measures, running } = describe(report.bench);
  return [
    `# Benchmark: ${report.bench}`,
    '',
    `<!-- Written by bench/lib/pages.js from the benchmark's closing JSON line: run it again to replace it. -->`,
    '',
    '## What it measures',
    '',
    measures,
    '',
    '## Latest figures',
    '',
    ...(report.ok === false ? failureLines(report) : figureLines(report)),
    '',
    '## How to reproduce',
    '',
    `\`npm run bench -- ${report.bench} --pages\` builds, runs it at its default size and writes this page (\`--quick\` for a quick run).`,
    ...(running ? ['', running] : []),
    '',
  ].join('\n');
}

/** The list of every page in bench/results/, by its title, between the markers of bench/README.md. */
function writeIndex() {
  const pages = fs
    .readdirSync(RESULTS_DIR)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => {
      const title = /^# (.*)$/m.exec(fs.readFileSync(path.join(RESULTS_DIR, file), 'utf8'))?.[1] ?? file;
      return `- [${title}](results/${file})`;
    });
  const text = fs.readFileSync(INDEX, 'utf8');
  const start = text.indexOf(INDEX_START);
  const end = text.indexOf(INDEX_END);
  if (start < 0 || end < start) throw new Error(`bench/README.md lacks the markers ${INDEX_START} and ${INDEX_END}`);
  fs.writeFileSync(INDEX, `${text.slice(0, start + INDEX_START.length)}\n${pages.join('\n')}\n${text.slice(end)}`);
}

/**
 * Writes the page of each report that succeeded, and of each that failed where its benchmark has
 * no page yet (a failure never replaces figures), then the index; answers the files written.
 */
function writePages(reports) {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const written = reports
    .map((report) => [report, path.join(RESULTS_DIR, `${report.bench}.md`)])
    .filter(([report, file]) => report.ok !== false || !fs.existsSync(file))
    .map(([report, file]) => {
      fs.writeFileSync(file, pageOf(report));
      return file;
    });
  writeIndex();
  return written;
}

if (require.main === module) {
  const files = process.argv.slice(2);
  if (!files.length) {
    console.error('usage: node bench/lib/pages.js <lines saved by npm run bench -- --out <file>>...');
    process.exit(2);
  }
  const reports = files.flatMap((file) =>
    fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line)),
  );
  for (const file of writePages(reports)) console.log(`wrote ${path.relative(process.cwd(), file)}`);
}

module.exports = { pageOf, writePages };
