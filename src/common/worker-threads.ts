/**
 * What every worker-thread pool (piscina) passes its threads. piscina loads a task module with
 * require() first, and Node 24's require() of an ES module can abort the whole process
 * (`Assertion failed: facade->InstantiateModule(...)` in CreateRequiredModuleFacade, seen once
 * in CI when a pool closed while its threads were loading). With require() of ES modules turned
 * off in the threads, require() refuses at once and piscina loads the module with import().
 */
export function workerExecArgv(): string[] {
  // Not the parent's own flags: a Worker refuses per-process ones (the test runner's, say).
  return ["--disable-warning=ExperimentalWarning", "--no-experimental-require-module"];
}
