import { UsageError } from "./usage.ts";

export async function intel(_args: string[]): Promise<number | undefined> {
  throw new UsageError("the intel service is not built yet");
}
