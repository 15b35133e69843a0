/** Folders whose files are tests or test support, in any language. */
const TEST_FOLDER = /(^|\/)(tests?|__tests?__|specs?)\//;

/**
 * File names test runners collect: `x.test.ts` / `x.spec.js` (Jest, Vitest, Mocha),
 * `x_test.go`, `test_x.py` / `x_test.py` and `conftest.py` (pytest), `x_spec.rb` (RSpec),
 * `XTest.java` / `XTests.cs` / `XIT.kt` (JUnit, xUnit), `x_test.rs` / `x_tests.rs`.
 */
const TEST_FILE =
  /(\.(test|spec)\.[^/]+|_test\.(go|py|rs|c|cc|cpp)|_tests\.rs|_spec\.rb|(^|\/)test_[^/]+\.py|(^|\/)conftest\.py|(Test|Tests|IT)\.(java|kt|cs|scala))$/;

/** Whether a root-relative path is a test file by the common conventions of its language. */
export function isTestPath(path: string): boolean {
  return TEST_FOLDER.test(path) || TEST_FILE.test(path);
}
