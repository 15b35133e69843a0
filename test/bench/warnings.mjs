// Node prints every process warning; the SDK's HTTP clients raise the same one thousands of times
// in a run (an abort listener per request on one long-lived signal). Each kind is printed once
// here and counted, so that the run's output stays readable and the page can say what was seen.
const seen = new Map();

function kindOf(warning) {
  return warning.name === 'MaxListenersExceededWarning'
    ? `${warning.name} (${warning.type} listeners)`
    : warning.name;
}

export function printEachWarningOnce() {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    const kind = kindOf(warning);
    const entry = seen.get(kind);
    if (entry) entry.count++;
    else {
      seen.set(kind, { kind, message: warning.message, count: 1 });
      process.stderr.write(`bench: ${warning.name}: ${warning.message} (printed once, counted after)\n`);
    }
  });
}

export function warningsSeen() {
  return [...seen.values()];
}
