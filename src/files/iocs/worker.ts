/** Runs in a worker thread (piscina): the indicator scan of one file, off the event loop. */
import { extractIocs } from "./extract.ts";
import type { IocOptions, IocResult, TextPart } from "./types.ts";

export interface IocTask {
  parts: TextPart[];
  options: IocOptions;
}

export default function run(task: IocTask): IocResult {
  return extractIocs(task.parts, task.options);
}
