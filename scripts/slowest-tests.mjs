// Prints the slowest test files of vitest's JSON reports (`--reporter=json`), so CI shows where
// its time goes: `node scripts/slowest-tests.mjs <report.json>... [--top N]`.
import { readFileSync } from 'node:fs';
import process from 'node:process';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 10;
const reports = args.filter((a, i) => a !== '--top' && i !== topAt + 1);
if (reports.length === 0 || !Number.isInteger(top) || top < 1) {
  process.stderr.write('usage: node scripts/slowest-tests.mjs <report.json>... [--top N]\n');
  process.exit(2);
}

for (const path of reports) {
  const report = JSON.parse(readFileSync(path, 'utf8'));
  const files = (report.testResults ?? [])
    .map((f) => ({ name: f.name.replace(`${process.cwd()}/`, ''), ms: Math.max(0, f.endTime - f.startTime) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top);
  process.stdout.write(`slowest test files (${path}):\n`);
  for (const f of files) process.stdout.write(`  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.name}\n`);
}
