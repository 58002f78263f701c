/** Facts about other processes of this machine. */

/** Whether a process with this id exists (one we may not signal counts: it exists). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
