/**
 * One progress line per file on stderr, only when stderr is a terminal: bytes sent while the file
 * uploads, then the time spent while the service works on it. Elsewhere (a pipe, a log) it is silent.
 */

const WIDTH = 24;
const REFRESH_MS = 200;

export interface Progress {
  sent(bytes: number): void;
  processing(): void;
  /** Ends the line with a last word ("done", "failed"). */
  end(word: string): void;
}

const silent: Progress = { sent() {}, processing() {}, end() {} };

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

function label(name: string): string {
  // Control characters in a file name must not drive the terminal.
  const clean = name.replace(/\p{Cc}/gu, "?");
  return clean.length > 32 ? `${clean.slice(0, 31)}…` : clean.padEnd(32);
}

export function progressFor(
  name: string,
  total: number,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  if (!stream.isTTY) return silent;
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const draw = (text: string) => {
    stream.write(`\r\x1b[K${label(name)} ${text}`);
  };
  const bar = (bytes: number) => {
    const done = total === 0 ? 1 : bytes / total;
    const filled = Math.round(done * WIDTH);
    return `[${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${Math.round(done * 100)}% ${size(bytes)}/${size(total)}`;
  };
  let lastDraw = 0;
  draw(bar(0));
  return {
    sent(bytes) {
      if (Date.now() - lastDraw < REFRESH_MS && bytes < total) return;
      lastDraw = Date.now();
      draw(bar(bytes));
    },
    processing() {
      const tick = () =>
        draw(`[${"#".repeat(WIDTH)}] sent, processing ${((Date.now() - started) / 1000).toFixed(0)} s`);
      tick();
      timer = setInterval(tick, 1000);
      timer.unref();
    },
    end(word) {
      clearInterval(timer);
      draw(`${word} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      stream.write("\n");
    },
  };
}
