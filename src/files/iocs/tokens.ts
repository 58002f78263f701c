/**
 * Cuts refanged text into tokens (runs of non-space characters). Two joins undo layout: Windows
 * paths and registry keys may hold single spaces ("Program Files"), so a token that starts one takes
 * the next tokens while they go on with a backslash; and a token cut at a line end after "-", "/",
 * "\\" and the like (PDF line wrapping) takes the next line's first token, unless either line is only
 * a delimiter ("----" around a listing block), the next line starts a URL or path of its own, or both
 * are indicators already (a list of "host/index.php?" lines).
 */
import { TOKEN, URL_START } from "./patterns.ts";

export interface Token {
  start: number;
  token: string;
  /** Positions in `token` where a line break was removed (to map back to text offsets). */
  breaks: number[];
}

const STARTS_WINDOWS = /^(?:[a-z]:\\|%[a-z_]{1,40}%\\|HKEY_|HK(?:LM|CU|CR|U|CC)\\)/i;
/** Words a Windows path or registry key may take after a space before its next backslash. */
const PATH_LOOKAHEAD = 3;
/** Characters after which a line break is taken for wrapping inside one indicator. */
const WRAPS_AFTER = new Set(["-", "/", "\\", "_", "?", "&", "="]);
/** A token with neither letter nor digit ("----", "___") is layout, not the start of a wrapped indicator. */
const HAS_ALNUM = /[a-z0-9]/i;

/**
 * Whether a token that ends a line goes on with the next line's first token: not when either is
 * layout, when the next opens a URL or a Windows path, nor when both are indicators on their own
 * (a list of "host/index.php?" lines). Once a token has been joined, its first line passed these
 * checks: only the next line's are made, so a long wrapped run is never read again (linear).
 */
function wraps(token: string, next: string, joined: boolean, standsAlone: (t: string) => boolean): boolean {
  if (!WRAPS_AFTER.has(token[token.length - 1] ?? "")) return false;
  if (!HAS_ALNUM.test(next) || URL_START.test(next) || STARTS_WINDOWS.test(next)) return false;
  return joined || (HAS_ALNUM.test(token) && !(standsAlone(token) && standsAlone(next)));
}

/** The tokens of a text in order, with look-ahead that can be given back. */
class Tokens {
  private readonly pattern = new RegExp(TOKEN.source, "g");
  private readonly pending: RegExpExecArray[] = [];
  private done = false;
  private readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  next(): RegExpExecArray | null {
    const queued = this.pending.shift();
    if (queued || this.done) return queued ?? null;
    // A failed exec rewinds lastIndex to 0: never call it again after the end.
    const m = this.pattern.exec(this.text);
    if (!m) this.done = true;
    return m;
  }
  giveBack(tokens: RegExpExecArray[]): void {
    this.pending.unshift(...tokens);
  }
}

export function* tokensOf(
  text: string,
  maxChars: number,
  standsAlone: (token: string) => boolean = () => false,
): Generator<Token> {
  const tokens = new Tokens(text);
  let m = tokens.next();
  while (m) {
    const start = m.index;
    let token = STARTS_WINDOWS.test(m[0]) ? joinPath(m[0], start, text, tokens, maxChars) : m[0];
    const breaks: number[] = [];
    m = tokens.next();
    // "secure-login-" + "\n" + "verify.com/a": one wrapped indicator.
    while (
      m &&
      token.length <= maxChars &&
      m.index === start + token.length + breaks.length + 1 &&
      text[m.index - 1] === "\n" &&
      wraps(token, m[0], breaks.length > 0, standsAlone)
    ) {
      breaks.push(token.length);
      token += m[0];
      m = tokens.next();
    }
    yield { start, token, breaks };
  }
}

/** Joins "C:\\Program" + "Files" + "(x86)\\App\\a.exe" across single spaces; unused look-ahead is given back. */
function joinPath(first: string, start: number, text: string, tokens: Tokens, maxChars: number): string {
  let end = start + first.length;
  for (;;) {
    let reach = end;
    const ahead: RegExpExecArray[] = [];
    let joined = false;
    while (ahead.length < PATH_LOOKAHEAD && reach - start <= maxChars) {
      const t = tokens.next();
      if (!t) break;
      ahead.push(t);
      if (t.index !== reach + 1 || text[reach] !== " " || STARTS_WINDOWS.test(t[0])) break;
      reach = t.index + t[0].length;
      if (continuesPath(t[0])) {
        end = reach;
        joined = true;
        ahead.length = 0;
        break;
      }
    }
    tokens.giveBack(ahead);
    if (!joined) return text.slice(start, end);
  }
}

function continuesPath(next: string): boolean {
  const slash = next.indexOf("\\");
  return slash >= 0 && !STARTS_WINDOWS.test(next) && !/[:/]/.test(next.slice(0, slash));
}
