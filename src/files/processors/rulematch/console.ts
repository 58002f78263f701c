/**
 * Output of the YARA `console` module, kept for the result: the engine prints through the worker
 * thread's `console`, which would reach the service log (forged entries, unbounded volume). Here
 * every console method of the worker writes into a capped buffer instead.
 */

export class ConsoleCapture {
  private lines: string[] = [];
  private bytes = 0;
  private max = 0;
  private truncated = false;

  constructor() {
    const capture = (...args: unknown[]) => this.write(args.map(String).join(" "));
    for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) {
      console[method] = capture;
    }
  }

  start(maxBytes: number): void {
    this.lines = [];
    this.bytes = 0;
    this.max = maxBytes;
    this.truncated = false;
  }

  private write(line: string): void {
    if (this.bytes >= this.max) {
      this.truncated = true;
      return;
    }
    const room = this.max - this.bytes;
    const kept = line.length > room ? line.slice(0, room) : line;
    this.truncated ||= kept.length < line.length;
    this.lines.push(kept);
    this.bytes += kept.length + 1;
  }

  stop(): { console: string[]; consoleTruncated: boolean } {
    const out = { console: this.lines, consoleTruncated: this.truncated };
    this.max = 0;
    this.lines = [];
    return out;
  }
}
