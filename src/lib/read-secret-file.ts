import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

function kindOfFile(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The text of a file that holds a secret (an API key, a webhook secret, a token): a regular file (a
 * symbolic link to one, as a mounted Kubernetes secret is, counts) of at most `maxBytes`, read with
 * at most that many bytes and one more. Anything else (a device such as /dev/zero, a named pipe, a
 * folder) is refused before a byte is read: opened without blocking, so a pipe nobody writes to
 * cannot hang the caller. `what` names the secret in the reasons (`key`, `secret`); `refuse(why)` makes
 * the error thrown, and `why` never holds the file's text.
 */
export function readSecretFile(file: string, maxBytes: number, what: string, refuse: (why: string) => Error): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw refuse((error as NodeJS.ErrnoException).code ?? 'unreadable');
  }
  let why: string | undefined;
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      why = `it is ${kindOfFile(stats)}: name a regular file that holds the ${what}`;
    } else {
      const buffer = Buffer.alloc(maxBytes + 1);
      let length = 0;
      while (length < buffer.length) {
        const n = readSync(fd, buffer, length, buffer.length - length, null);
        if (n === 0) break;
        length += n;
      }
      if (length <= maxBytes) return buffer.toString('utf8', 0, length);
      why = `it is larger than ${maxBytes} bytes: name the file that holds only the ${what}`;
    }
  } catch (error) {
    why = (error as NodeJS.ErrnoException).code ?? 'unreadable';
  } finally {
    closeSync(fd);
  }
  throw refuse(why);
}
