/**
 * The JSON formats (saved plan, apply result) spell property names in snake_case, like Terraform's
 * JSON and `--ids-out`; the model's properties are camelCase. Only property names are converted:
 * the values of `opaque` properties are data keyed by data (language pairs, rule names, HTTP
 * methods, glossary names) and are copied as they are.
 */
export function camelToSnake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function snakeToCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function convert(value: unknown, rename: (name: string) => string, opaque: ReadonlySet<string>, keep: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => convert(v, rename, opaque, keep));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = keep.has(key) ? key : rename(key);
    out[name] = opaque.has(key) ? v : convert(v, rename, opaque, keep);
  }
  return out;
}

/** camelCase model → snake_case JSON value. `opaque`: camelCase names of data-keyed properties. */
export function toSnakeKeys(value: unknown, opaque: ReadonlySet<string>): unknown {
  return convert(value, camelToSnake, opaque, new Set());
}

/** snake_case JSON value → camelCase model. `opaque`: snake_case names; `keep`: names the model spells in snake_case. */
export function toCamelKeys(value: unknown, opaque: ReadonlySet<string>, keep: ReadonlySet<string>): unknown {
  return convert(value, snakeToCamel, opaque, keep);
}
