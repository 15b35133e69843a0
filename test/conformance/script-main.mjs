/** Runs a script's async main and exits with its code; a failure is reported by the script's name. */
export function runMain(name, main) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`${name}: ${error.message}\n`);
      process.exitCode = 1;
    },
  );
}
