/**
 * What the service names (a glossary's or list's name, a dictionary's languages) becomes part of a
 * file name only through here, the same way in `import` and `pull`: lowercase ASCII letters and
 * digits joined by single hyphens, nothing else — no `.`, no `/`, no NUL, no line break — so no
 * name can make a path, a hidden file or a name a terminal acts on.
 */

/** `Product terms (DE)` → `product-terms-de`: file names people can read; `fallback` when nothing is left. */
export function slugify(name: string, fallback = 'resource'): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return slug === '' ? fallback : slug;
}

/** `en-de`, `en-zh-hans`: a dictionary's pair as a file name part (`shop.en-de.tsv`). */
export function pairSlug(pair: { readonly sourceLang: string; readonly targetLang: string }): string {
  return `${slugify(pair.sourceLang, 'x')}-${slugify(pair.targetLang, 'x')}`;
}
