/**
 * Settings of `./loupe doctor` only: the thresholds it judges by. They never change what the
 * services do, so they live beside the command rather than in a service's config.
 */
import { integer, readSettings } from "../../common/settings.ts";

export const doctorSettings = {
  minFreeMb: integer(
    ["LOUPE_DOCTOR_MIN_FREE_MB", "DOCTOR_MIN_FREE_MB"],
    1024,
    "`./loupe doctor`: free space under LOUPE_DATA_DIR and the temp folders below which it reports an error, in MB.",
    { min: 0 },
  ),
  queueWarnDepth: integer(
    ["LOUPE_DOCTOR_QUEUE_WARN_DEPTH", "DOCTOR_QUEUE_WARN_DEPTH"],
    1000,
    "`./loupe doctor`: queued intel jobs past which it warns (workers are not keeping up).",
    { min: 0 },
  ),
  signatureMaxAgeHours: integer(
    ["LOUPE_DOCTOR_SIGNATURE_MAX_AGE_HOURS", "DOCTOR_SIGNATURE_MAX_AGE_HOURS"],
    48,
    "`./loupe doctor`: age of clamd's signature database past which it warns (freshclam not running).",
    { min: 1 },
  ),
  timeoutMs: integer(
    ["LOUPE_DOCTOR_TIMEOUT_MS", "DOCTOR_TIMEOUT_MS"],
    5000,
    "`./loupe doctor`: time limit of each network check (database, clamd), in ms.",
    { min: 100 },
  ),
};

export type DoctorSettings = ReturnType<typeof readDoctorSettings>;

export function readDoctorSettings(env: NodeJS.ProcessEnv) {
  return readSettings(doctorSettings, env);
}
