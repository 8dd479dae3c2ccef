// Test reporter for run-tests.mjs with TEST_DURATIONS_FILE set: the time each file took (its top-level
// tests summed), slowest first, to keep LONG_FIRST honest.
export default async function* fileReporter(source) {
  const perFile = new Map();
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0) {
      const file = event.data.file ?? '?';
      const d = event.data.details?.duration_ms ?? 0;
      perFile.set(file, (perFile.get(file) ?? 0) + d);
      if (event.type === 'test:fail') yield `FAIL ${file} :: ${event.data.name}\n`;
    }
  }
  const rows = [...perFile.entries()].sort((a, b) => b[1] - a[1]);
  let total = 0;
  for (const [f, d] of rows) {
    total += d;
    yield `${(d / 1000).toFixed(1).padStart(7)} s  ${f}\n`;
  }
  yield `total ${(total / 1000).toFixed(1)} s over ${rows.length} files\n`;
}
