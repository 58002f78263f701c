/** The scan's options from the files settings (IOC_*), for the processors that scan. */
import type { FilesConfig } from "../config.ts";
import type { IocOptions } from "./types.ts";

export function iocOptions(config: FilesConfig, includePrivate = false): IocOptions {
  return {
    maxChars: config.iocMaxChars,
    maxIndicators: config.iocMaxIndicators,
    maxTokenChars: config.iocMaxTokenChars,
    maxLocations: config.iocMaxLocations,
    includePrivate,
  };
}
