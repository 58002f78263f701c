/**
 * The passwords an extraction may try on encrypted archive entries: the request's `passwords`
 * field, then the configured defaults, plus — while an e-mail's attachments are read — the ones
 * its body gives. Trying one password on one entry is a "try"; tries are counted against one
 * bound per file, so N passwords on M entries cannot cost N × M. Passwords never reach a log.
 */

/** Longest password taken from a form field or an e-mail body, in characters. */
export const MAX_PASSWORD_LENGTH = 128;
/** At most this many passwords are taken from one e-mail body. */
const MAX_FOUND_IN_TEXT = 8;
/** Only this much of a body is searched (the words come near the start of a message). */
const MAX_TEXT_SEARCHED = 100_000;

/**
 * "password: X", "pass X", "pwd = X", "mot de passe : X", "Passwort: X", "contraseña: X", "senha: X".
 * Linear time: the keyword is a fixed alternation, the separator a bounded class run, and the
 * password one bounded run of non-space characters (no nested or overlapping quantifiers).
 */
const PASSWORD_IN_TEXT =
  /\b(?:password|passwd|pass|pwd|pw|mot de passe|mdp|passwort|kennwort|contrase(?:ñ|n)a|senha|parola d'ordine|wachtwoord)\b(?: (?:is|est|ist|es|é|=))?[ \t]{0,4}[:=]?[ \t]{0,4}["'«“]?([^\s"'»”]{1,128})/giu;

/** Trailing punctuation that ends a sentence rather than a password. */
const TRAILING = /[.,;)\]]+$/u;

export function passwordsInText(text: string): string[] {
  const found: string[] = [];
  for (const m of text.slice(0, MAX_TEXT_SEARCHED).matchAll(PASSWORD_IN_TEXT)) {
    const candidate = (m[1] ?? "").replace(TRAILING, "");
    if (candidate && !found.includes(candidate)) found.push(candidate);
    if (found.length >= MAX_FOUND_IN_TEXT) break;
  }
  return found;
}

/** The candidates in order (the closest source first), without repeats or empty strings. */
function unique(lists: readonly (readonly string[])[]): string[] {
  const seen = new Set<string>();
  for (const list of lists) for (const p of list) if (p !== "") seen.add(p);
  return [...seen];
}

export class Keyring {
  readonly #base: readonly string[];
  #scoped: string[][] = [];
  #triesLeft: number;
  /** Why some entries were not tried (the try bound ran out), or null. */
  exhausted: string | null = null;

  constructor(passwords: readonly string[], maxTries: number) {
    this.#base = passwords;
    this.#triesLeft = maxTries;
  }

  /** The passwords to try now: an enclosing e-mail's first, then the request's and the defaults. */
  get list(): string[] {
    return unique([...[...this.#scoped].reverse(), this.#base]);
  }

  /** Reserves `n` tries (one password on n entries); false once the bound is reached. */
  take(n: number, total: number): boolean {
    if (n > this.#triesLeft) {
      this.exhausted ??= `more than ${total} password tries`;
      return false;
    }
    this.#triesLeft -= n;
    return true;
  }

  /** Runs `work` with `extra` passwords tried first (an e-mail's, for its attachments). */
  async during<T>(extra: readonly string[], work: () => Promise<T>): Promise<T> {
    if (extra.length === 0) return work();
    this.#scoped.push([...extra]);
    try {
      return await work();
    } finally {
      this.#scoped.pop();
    }
  }
}
