// Preloaded into the CLI by the hostile-input harness: writes the process's peak RSS (KiB) at exit.
// On Linux the peak of this program's own memory (VmHWM): getrusage's maxRSS survives exec, so it
// counts the memory of the test process that spawned this one (a test holding a 300 MB input
// measured 600 MB for a command that used 90).
'use strict';
const file = process.env.EPISTEME_TEST_RSS_FILE;
if (file) {
  process.on('exit', () => {
    const fs = require('node:fs');
    let kib = process.resourceUsage().maxRSS;
    try {
      const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
      if (match) kib = Number(match[1]);
    } catch {
      // not Linux: maxRSS
    }
    try {
      fs.writeFileSync(file, String(kib));
    } catch {
      // the measurement is best effort; the harness reports a missing value
    }
  });
}
