// Reads JUnit files with three real npm consumers and prints, per consumer, what it
// counted: {total (skipped included), passed, failed, skipped, failed: [names]}.
// A name is "classname.name" where the consumer keeps the classname, else "name".
// Usage: node consumers.mjs NODE_MODULES OUT_DIR FILE...  (several files: one merged report)
import { execFileSync } from 'child_process';
import fs from 'fs';
import path from 'path';
import { createRequire } from 'module';
import { pathToFileURL } from 'url';

const [modules, outDir, ...files] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'noop.js'));
const out = {};

// test-results-parser (testbeats): its totals come from the header counts, which it
// reads without the skipped ones, so total + skipped is every test. Cases keep only
// their name.
{
  const { parse } = require('test-results-parser');
  const r = parse({ type: 'junit', files });
  const failed = [];
  for (const s of r.suites) for (const c of s.cases) if (c.status === 'FAIL') failed.push(c.name);
  out['test-results-parser'] = { total: r.total + r.skipped, passed: r.passed, failed: r.failed, skipped: r.skipped,
                                 failed_names: failed, names: 'name' };
}

// junit-to-ctrf, through its command line as CI jobs run it: one CTRF report of all
// files. Its test names are "<testsuite name>: <testcase name>".
{
  const dir = fs.mkdtempSync(path.join(outDir, 'ctrf-'));
  for (const [i, f] of files.entries()) fs.copyFileSync(f, path.join(dir, `${i}.xml`));
  const report = path.join(outDir, 'ctrf.json');
  execFileSync(process.execPath, [path.join(modules, 'junit-to-ctrf', 'dist', 'cli.js'), path.join(dir, '*.xml'),
                                  '--output', report], { stdio: ['ignore', 'ignore', 'inherit'] });
  const ctrf = JSON.parse(fs.readFileSync(report, 'utf8'));
  const s = ctrf.results.summary;
  out['junit-to-ctrf'] = { total: s.tests, passed: s.passed, failed: s.failed, skipped: s.skipped,
                           failed_names: ctrf.results.tests.filter(t => t.status === 'failed').map(t => t.name.split(': ').slice(1).join(': ')),
                           names: 'name', other: s.other + s.pending };
}

// xunit-viewer: its own parser and merge of every file, as its report page shows them.
{
  const root = path.join(modules, 'xunit-viewer', 'src', 'cli');
  const getSuites = (await import(pathToFileURL(path.join(root, 'get-suites.js')))).default;
  const quiet = { error: (x) => x, file: (x) => x };
  const suites = await getSuites(quiet, files.map(f => ({ file: f, contents: fs.readFileSync(f, 'utf8') })));
  const counts = { total: 0, passed: 0, failed: 0, skipped: 0, failed_names: [], names: 'full' };
  for (const suite of Object.values(suites.suites || {})) {
    for (const t of Object.values(suite.tests)) {
      counts.total += 1;
      if (t.status === 'failure' || t.status === 'error') {
        counts.failed += 1;
        counts.failed_names.push(`${t.classname}.${t.name}`);
      } else if (t.status === 'skipped') counts.skipped += 1;
      else if (t.status === 'passed') counts.passed += 1;
    }
  }
  out['xunit-viewer'] = counts;
}

console.log(JSON.stringify(out));
