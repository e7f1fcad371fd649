import { badRequest, describeType } from './service-error.js';
import type { ParsedBody } from './parse-body.js';

/**
 * Reads the fields of one request object, checking types at the boundary and rejecting unknown
 * fields (`finish`). Form bodies carry only strings, so where the spec says array or integer a
 * form value is converted (a single `text=` is an array of one).
 */
export class FieldReader {
  private readonly seen = new Set<string>();
  private readonly record: Record<string, unknown>;

  constructor(
    value: unknown,
    private readonly where: string,
    private readonly form: boolean,
  ) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw badRequest(`Expected ${where} to be an object, got ${describeType(value)}`);
    }
    this.record = value as Record<string, unknown>;
  }

  static fromBody(body: ParsedBody, where = 'the request body'): FieldReader {
    if (body.kind === 'empty') throw badRequest(`Expected ${where} to be a JSON object, got an empty body`);
    return new FieldReader(body.value, where, body.kind === 'form');
  }

  private label(name: string): string {
    return this.where === 'the request body' ? `\`${name}\`` : `\`${name}\` of ${this.where}`;
  }

  has(name: string): boolean {
    return Object.hasOwn(this.record, name);
  }

  raw(name: string): unknown {
    this.seen.add(name);
    return Object.hasOwn(this.record, name) ? this.record[name] : undefined;
  }

  optionalString(name: string): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw badRequest(`Expected ${this.label(name)} to be a string, got ${describeType(value)}`);
    return value;
  }

  requiredString(name: string): string {
    const value = this.optionalString(name);
    if (value === undefined) throw badRequest(`Missing required field ${this.label(name)}`);
    return value;
  }

  optionalStringArray(name: string): string[] | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (this.form && typeof value === 'string') return [value];
    if (!Array.isArray(value)) throw badRequest(`Expected ${this.label(name)} to be an array of strings, got ${describeType(value)}`);
    value.forEach((item: unknown, i) => {
      if (typeof item !== 'string') throw badRequest(`Expected ${this.label(name)}[${i}] to be a string, got ${describeType(item)}`);
    });
    return value as string[];
  }

  optionalArray(name: string): unknown[] | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) throw badRequest(`Expected ${this.label(name)} to be an array, got ${describeType(value)}`);
    return value as unknown[];
  }

  optionalObject(name: string): Record<string, unknown> | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw badRequest(`Expected ${this.label(name)} to be an object, got ${describeType(value)}`);
    }
    return value as Record<string, unknown>;
  }

  optionalInteger(name: string, min: number, max: number): number | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    let n: number;
    if (typeof value === 'number') n = value;
    else if (this.form && typeof value === 'string' && /^-?\d{1,15}$/.test(value)) n = Number(value);
    else throw badRequest(`Expected ${this.label(name)} to be an integer from ${min} to ${max}, got ${describeType(value)}`);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw badRequest(`Expected ${this.label(name)} to be an integer from ${min} to ${max}, got ${String(n)}`);
    }
    return n;
  }

  /** Rejects fields this endpoint does not know (a typo must not be silently ignored). */
  finish(): void {
    for (const key of Object.keys(this.record)) {
      if (!this.seen.has(key)) throw badRequest(`Unknown field ${this.label(key)}`);
    }
  }
}

/** Strict integer query parameter (`page_size=abc`, `1e3`, `99999999999999999999` are rejected). */
export function readQueryInteger(query: URLSearchParams, name: string, defaultValue: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return defaultValue;
  if (!/^-?\d{1,15}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw badRequest(`Expected query parameter \`${name}\` to be an integer from ${min} to ${max}, got "${raw.slice(0, 40)}"`);
  }
  return Number(raw);
}
