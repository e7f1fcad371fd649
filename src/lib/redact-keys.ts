import escapeStringRegexp from 'escape-string-regexp';

/**
 * The API keys one run has read, taken out of everything it shows: its stdout and stderr (plans,
 * reports, PR comments, messages), its log lines, the daemon's endpoints and the messages of the
 * commits it pushes. Applied where text leaves the process, never to data: a name, an id or an
 * entry that contains the key (a key `demo`, a glossary `democracy terms`) is compared, planned,
 * sent and written as it is, and only what people see of it says `[redacted]`.
 *
 * Each key is looked for as it is and as JSON writes it (`"` and `\` escaped: a JSON report or log
 * line), and a key of LOWERCASED_FROM characters or more lowercased too (language codes are
 * lowercased as they are decoded; a shorter key, `KEY` or `Demo`, lowercased is an ordinary word
 * that termsync's own messages use); an output that escapes text its own way (markdown) adds its
 * escape with `addEncoding`.
 */
export const LOWERCASED_FROM = 16;

export class KeyRedactor {
  readonly #keys = new Set<string>();
  readonly #encodings: ((text: string) => string)[] = [(key) => key, (key) => JSON.stringify(key).slice(1, -1)];
  /** Every written form of every key, longest first (one form may hold another). */
  #forms: readonly string[] = [];
  /**
   * Matches where any form occurs: one scan of a text says whether it holds a key at all (it rarely
   * does). Looking for each form in turn cost a scan per form: a daemon's `/status` of 200 targets
   * (700 kB, the ids of 10,000 glossaries) took 250 ms of its one JavaScript thread to redact.
   */
  #any: RegExp | undefined;

  /** A key read for a target (from its variable or the key file). */
  add(key: string): void {
    if (key.length === 0 || this.#keys.has(key)) return;
    this.#keys.add(key);
    this.#update();
  }

  /** A way an output writes text (markdown's escapes), so that the key is found in that form too. */
  addEncoding(...encodings: readonly ((text: string) => string)[]): void {
    this.#encodings.push(...encodings);
    this.#update();
  }

  redact(text: string): string {
    if (this.#any === undefined || !this.#any.test(text)) return text;
    let out = text;
    for (const form of this.#forms) if (out.includes(form)) out = out.split(form).join('[redacted]');
    return out;
  }

  #update(): void {
    const forms = new Set<string>();
    for (const key of this.#keys) {
      for (const form of key.length >= LOWERCASED_FROM ? [key, key.toLowerCase()] : [key]) for (const encode of this.#encodings) forms.add(encode(form));
    }
    this.#forms = [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
    this.#any = this.#forms.length === 0 ? undefined : new RegExp(this.#forms.map((f) => escapeStringRegexp(f)).join('|'));
  }
}
