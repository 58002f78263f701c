/**
 * The child's side of the supervisor (supervisor.ts): a service reports that it is ready (and
 * its URLs) over the IPC channel, and stops when that channel closes — its supervisor is gone
 * (even SIGKILLed), and a service in its own process group would otherwise run on unseen.
 */

export interface ReadyMessage {
  type: "loupe-ready";
  url?: string;
  /** The admin panel's URL: made by the intel process, which alone knows it. */
  adminUrl?: string;
}

export function isReadyMessage(value: unknown): value is ReadyMessage {
  return typeof value === "object" && value !== null && (value as ReadyMessage).type === "loupe-ready";
}

/** Tells a supervising parent (if any) that this service is ready; no-op when run by hand. */
export function reportReady(info: Omit<ReadyMessage, "type"> = {}): void {
  if (!process.send || !process.connected) return;
  process.send({ type: "loupe-ready", ...info } satisfies ReadyMessage);
  // The channel must not keep a process alive that would otherwise end; SIGTERM on its loss
  // runs the service's ordinary shutdown.
  process.channel?.unref();
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
}
