/**
 * The entry of a sandbox process: imports the job module named on its command line, then runs
 * one job at a time as the parent sends them. It ends itself when the parent goes away, so a
 * crashed service leaves no parsing process behind.
 */
interface Job {
  id: number;
  task: unknown;
}

const moduleUrl = process.argv[2];
if (!moduleUrl || !process.send) {
  console.error("a sandbox process is started by its pool, with the job module's URL");
  process.exit(2);
}
const send = process.send.bind(process);
const job = (await import(moduleUrl)).default as (task: unknown) => Promise<unknown>;

process.on("disconnect", () => process.exit(0));
process.on("message", async ({ id, task }: Job) => {
  try {
    send({ id, ok: true, value: await job(task) });
  } catch (err) {
    send({ id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
});
send({ ready: true });
