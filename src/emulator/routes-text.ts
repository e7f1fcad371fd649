import { STYLE_TONE_TARGETS, V2_TARGETS, WRITE_TARGETS, bcp47, GLOSSARY_LANGUAGES } from './languages-data.js';
import { applyGlossary, detectLanguage, improveText } from './improve-text.js';
import { FieldReader } from './read-fields.js';
import { jsonResponse, type RequestContext, type ServiceResponse } from './request-context.js';
import { badRequest, notFound } from './service-error.js';
import { glossaryDictionaryFor } from './routes-glossaries.js';

const WRITING_STYLES = ['simple', 'business', 'academic', 'casual', 'default', 'prefer_simple', 'prefer_business', 'prefer_academic', 'prefer_casual'];
const TONES = ['enthusiastic', 'friendly', 'confident', 'diplomatic', 'default', 'prefer_enthusiastic', 'prefer_friendly', 'prefer_confident', 'prefer_diplomatic'];
const WRITE_TARGET_BY_LOWER = new Map(WRITE_TARGETS.map((t) => [t.toLowerCase(), t]));

function readText(reader: FieldReader): string[] {
  const text = reader.optionalStringArray('text');
  if (text === undefined) throw badRequest('Missing required field `text`');
  if (text.length === 0) throw badRequest('`text` must hold at least one string');
  return text;
}

function readWriteTarget(reader: FieldReader): string | undefined {
  const raw = reader.optionalString('target_lang');
  if (raw === undefined) return undefined;
  const target = WRITE_TARGET_BY_LOWER.get(raw.toLowerCase());
  if (target === undefined) throw badRequest(`Unsupported \`target_lang\` "${raw.slice(0, 40)}": expected one of ${WRITE_TARGETS.join(', ')}`);
  return target;
}

function improvements(texts: readonly string[], target: string | undefined): ServiceResponse {
  return jsonResponse(200, {
    improvements: texts.map((text) => {
      const detected = detectLanguage(text);
      const language = target ?? detected;
      return { text: improveText(text, language), target_language: language, detected_source_language: detected };
    }),
  });
}

/** `/v2/write/rephrase`, rules 1–10 of the spec (size limit 10 KiB is enforced while reading). */
export function rephrase(ctx: RequestContext): ServiceResponse {
  const reader = FieldReader.fromBody(ctx.body());
  const texts = readText(reader);
  const target = readWriteTarget(reader);
  const style = reader.optionalString('writing_style');
  const tone = reader.optionalString('tone');
  reader.finish();
  if (style !== undefined && !WRITING_STYLES.includes(style)) throw badRequest(`Unsupported \`writing_style\` "${style.slice(0, 40)}": expected one of ${WRITING_STYLES.join(', ')}`);
  if (tone !== undefined && !TONES.includes(tone)) throw badRequest(`Unsupported \`tone\` "${tone.slice(0, 40)}": expected one of ${TONES.join(', ')}`);
  if (style !== undefined && tone !== undefined) throw badRequest('`writing_style` and `tone` must not both be sent in one request');
  const mode = style ?? tone;
  if (mode !== undefined && mode !== 'default' && !mode.startsWith('prefer_')) {
    // Rule 7: without support, prefer_ values fall back to default; plain values are an error.
    // Without target_lang the text's language decides. Detected English (also the default for short
    // or undecided text) is American or British English, both supported: only an explicit plain
    // `en` target lacks support.
    const language = target ?? detectLanguage(texts.join('\n'));
    const supported = STYLE_TONE_TARGETS.has(language) || (target === undefined && language === 'en');
    if (!supported) {
      const field = style !== undefined ? 'writing_style' : 'tone';
      throw badRequest(`\`${field}\` "${mode}" is not supported for language "${language}"; use "prefer_${mode}" to fall back to the default`);
    }
  }
  return improvements(texts, target);
}

export function correct(ctx: RequestContext): ServiceResponse {
  const reader = FieldReader.fromBody(ctx.body());
  const texts = readText(reader);
  const target = readWriteTarget(reader);
  reader.finish();
  return improvements(texts, target);
}

const TRANSLATE_TARGETS = new Set([...V2_TARGETS, 'EN', 'PT'].map((t) => t.toUpperCase()));
const TRANSLATE_SOURCES = new Set(GLOSSARY_LANGUAGES.map((l) => l.toUpperCase()));

/**
 * `/v2/translate`: the text comes back unchanged except for glossary entries, which is enough to
 * see that the right dictionary was applied. Other translation parameters exist (spec: not shown)
 * and are accepted without effect.
 */
export function translate(ctx: RequestContext): ServiceResponse {
  const reader = FieldReader.fromBody(ctx.body());
  const texts = readText(reader);
  const sourceRaw = reader.optionalString('source_lang');
  const targetRaw = reader.optionalString('target_lang');
  const glossaryId = reader.optionalString('glossary_id');
  const memoryId = reader.optionalString('translation_memory_id');
  reader.optionalInteger('translation_memory_threshold', 0, 100);
  if (targetRaw === undefined) throw badRequest('Missing required field `target_lang`');
  const target = targetRaw.toUpperCase();
  if (!TRANSLATE_TARGETS.has(target)) throw badRequest(`Unsupported \`target_lang\` "${targetRaw.slice(0, 40)}"`);
  const source = sourceRaw?.toUpperCase();
  if (source !== undefined && !TRANSLATE_SOURCES.has(source)) throw badRequest(`Unsupported \`source_lang\` "${(sourceRaw ?? '').slice(0, 40)}"`);
  if (glossaryId !== undefined && source === undefined) {
    throw badRequest('`source_lang` is required when `glossary_id` is sent (a glossary cannot be used with source-language detection)');
  }
  if (memoryId !== undefined && !ctx.account.translationMemories.some((m) => m.translation_memory_id === memoryId)) {
    throw notFound(`Translation memory "${memoryId.slice(0, 80)}" not found`);
  }
  const dictionary = glossaryId === undefined || source === undefined ? undefined : glossaryDictionaryFor(ctx, glossaryId, source, bcp47(target));
  return jsonResponse(200, {
    translations: texts.map((text) => ({
      detected_source_language: source ?? detectLanguage(text).toUpperCase(),
      text: applyGlossary(text, dictionary?.entries),
    })),
  });
}
