// Preloaded into the CLI by the hostile-input harness: writes the process's peak RSS (KiB) at exit.
'use strict';
const file = process.env.EPISTEME_TEST_RSS_FILE;
if (file) {
  process.on('exit', () => {
    try {
      require('node:fs').writeFileSync(file, String(process.resourceUsage().maxRSS));
    } catch {
      // the measurement is best effort; the harness reports a missing value
    }
  });
}
