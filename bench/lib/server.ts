/** Services as child processes for the benchmarks: the same helper the tests use (bench may lean on test helpers, never the reverse). */
export {
  type ChildServer,
  freePort,
  spawnIntelWorker,
  startChildServer,
} from "../../test/helpers/child-server.ts";
