import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeChunks, JOIN_BUFFER_BYTES } from '../../src/api/send-request.js';

/** `bytes` cut into chunks at the given offsets (sorted, within the buffer). */
function cut(bytes: Buffer, at: readonly number[]): Buffer[] {
  const offsets = [...new Set(at.map((a) => a % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const end of [...offsets, bytes.length]) {
    chunks.push(bytes.subarray(start, end));
    start = end;
  }
  return chunks;
}

describe('decodeChunks', () => {
  it('gives the text of the whole answer, however its bytes are cut (multi-byte characters split too), answer after answer', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.array(fc.nat(), { maxLength: 6 })), { minLength: 1, maxLength: 5 }), (answers) => {
        // One after the other: a shorter answer after a longer one gives only its own text.
        for (const [text, at] of answers) {
          const bytes = Buffer.from(text, 'utf8');
          const chunks = cut(bytes, at);
          expect(decodeChunks(chunks, bytes.length)).toBe(text);
        }
      }),
    );
  });

  it('decodes an answer larger than the kept buffer from a buffer of its own, and the next one from the kept buffer', () => {
    const large = 'Größe\tx\n'.repeat(Math.ceil(JOIN_BUFFER_BYTES / 8) + 10);
    const bytes = Buffer.from(large, 'utf8');
    expect(bytes.length).toBeGreaterThan(JOIN_BUFFER_BYTES);
    expect(decodeChunks(cut(bytes, [65536, 131072, 131073]), bytes.length)).toBe(large);
    expect(decodeChunks(cut(Buffer.from('später\tlater', 'utf8'), [3]), Buffer.byteLength('später\tlater'))).toBe('später\tlater');
    expect(decodeChunks([], 0)).toBe('');
  });

  it('leaves the text of an earlier answer as it was when a later answer is decoded in the kept buffer', () => {
    const first = decodeChunks(cut(Buffer.from('Haus\thouse\nBaum\ttree', 'utf8'), [5, 11]), Buffer.byteLength('Haus\thouse\nBaum\ttree'));
    decodeChunks(cut(Buffer.from('xxxxxxxxxxxxxxxxxxxxxxxx', 'utf8'), [3, 9]), 24);
    expect(first).toBe('Haus\thouse\nBaum\ttree');
  });

  it('refuses a byte count that does not match its chunks (the answer would be cut short)', () => {
    expect(() => decodeChunks([Buffer.from('abc'), Buffer.from('def')], 4)).toThrow(RangeError);
  });
});

