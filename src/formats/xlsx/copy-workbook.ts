import { ZipFile } from 'yazl';
import { inflatePart, listEntries, localHeader, MAX_WORKBOOK_INFLATED, openZip, Refused } from './zip-parts.js';

/**
 * A workbook's zip container written again with some parts replaced (`replaced`: part name → its
 * new content): every other part keeps its content byte for byte, its name, its order in the
 * container, its time stamp and whether it was stored or deflated. yazl writes no compressed data
 * it did not compress itself, so a deflated part is inflated and deflated again: its content is the
 * same bytes, its compressed stream may differ. The parts inflate within MAX_WORKBOOK_INFLATED in
 * all (the loader bounded only the parts it reads), each within its declared size.
 */
export async function copyWorkbook(bytes: Buffer, replaced: ReadonlyMap<string, Buffer>): Promise<Buffer> {
  const zip = await openZip(bytes);
  const out = new ZipFile();
  try {
    const entries = await listEntries(zip);
    const declared = entries.reduce((n, e) => n + e.uncompressedSize, 0);
    if (declared > MAX_WORKBOOK_INFLATED) throw new Refused(`the workbook's parts inflate to ${declared} bytes, over the ${MAX_WORKBOOK_INFLATED}-byte limit`, 'entries/workbook-too-large');
    for (const entry of entries) {
      const options = { mtime: entry.getLastModDate(), compressionLevel: entry.compressionMethod === 0 ? 0 : 6 };
      if (entry.fileName.endsWith('/')) {
        out.addEmptyDirectory(entry.fileName, { mtime: options.mtime });
        continue;
      }
      const content = replaced.get(entry.fileName) ?? inflatePart(bytes, (await localHeader(zip, entry)).fileDataStart, entry);
      out.addBuffer(content, entry.fileName, options);
    }
  } finally {
    zip.close();
  }
  out.end();
  const chunks: Buffer[] = [];
  for await (const chunk of out.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
