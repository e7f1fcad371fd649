import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readApiKey, readBaseUrl } from '../../src/api/index.js';
import { ExitCode } from '../../src/lib/exit-codes.js';
import { exitCodeOfError } from '../../src/cli/exit-code-of.js';

const target = { name: 'default', apiKeyEnv: 'TERMSYNC_API_KEY', baseUrlEnv: 'TERMSYNC_BASE_URL' };

function failure(fn: () => unknown): { message: string; exitCode: number; code?: string } {
  try {
    fn();
  } catch (error) {
    return { ...(error as { message: string; code?: string }), message: (error as Error).message, exitCode: exitCodeOfError(error) };
  }
  throw new Error('expected a failure');
}

describe('reading the key and the URL from the environment', () => {
  it('takes the key from the target variable, else from TERMSYNC_API_KEY_FILE', () => {
    expect(readApiKey({ TERMSYNC_API_KEY: ' secret-1 \n' }, target)).toBe('secret-1');
    const dir = mkdtempSync(join(tmpdir(), 'termsync-key-'));
    const file = join(dir, 'key');
    writeFileSync(file, 'secret-2\n');
    expect(readApiKey({ TERMSYNC_API_KEY_FILE: file }, target)).toBe('secret-2');
  });

  it('fails with exit 7 naming the variable, never a value', () => {
    const missing = failure(() => readApiKey({}, target));
    expect(missing.exitCode).toBe(ExitCode.authOrDestination);
    expect(missing.message).toBe('no API key for target "default": set TERMSYNC_API_KEY (or TERMSYNC_API_KEY_FILE)');
    const broken = failure(() => readApiKey({ TERMSYNC_API_KEY: 'abc def-secret' }, target));
    expect(broken.exitCode).toBe(ExitCode.authOrDestination);
    expect(broken.message).not.toContain('secret');
    const noFile = failure(() => readApiKey({ TERMSYNC_API_KEY_FILE: '/nonexistent/termsync-key' }, target));
    expect(noFile.message).toBe('cannot read the API key file named by TERMSYNC_API_KEY_FILE (ENOENT)');
  });

  it('reads only a small regular file: a device, a folder or a large file is refused (exit 7) without reading it', () => {
    const device = failure(() => readApiKey({ TERMSYNC_API_KEY_FILE: '/dev/zero' }, target));
    expect(device.exitCode).toBe(ExitCode.authOrDestination);
    expect(device.message).toBe('cannot read the API key file named by TERMSYNC_API_KEY_FILE (it is a device: name a regular file that holds the key)');
    const dir = mkdtempSync(join(tmpdir(), 'termsync-key-'));
    expect(failure(() => readApiKey({ TERMSYNC_API_KEY_FILE: dir }, target)).message).toContain('(it is a folder:');
    const large = join(dir, 'large');
    writeFileSync(large, `secret-3\n${'x'.repeat(5000)}`);
    expect(failure(() => readApiKey({ TERMSYNC_API_KEY_FILE: large }, target)).message).toContain('(it is larger than 4096 bytes:');
    const exact = join(dir, 'exact');
    writeFileSync(exact, `${'k'.repeat(4095)}\n`);
    expect(readApiKey({ TERMSYNC_API_KEY_FILE: exact }, target)).toBe('k'.repeat(4095));
  });

  it('reads the base URL, and a missing one is a destination error (exit 7) naming the variable', () => {
    expect(readBaseUrl({ TERMSYNC_BASE_URL: 'https://api.example.com/' }, target)).toBe('https://api.example.com/');
    const missing = failure(() => readBaseUrl({ TERMSYNC_BASE_URL: ' ' }, target));
    expect(missing.exitCode).toBe(ExitCode.authOrDestination);
    expect(missing.code).toBe('base_url_missing');
    expect(missing.message).toBe('no service URL for target "default": set TERMSYNC_BASE_URL');
    expect(failure(() => readBaseUrl({}, target)).exitCode).toBe(ExitCode.authOrDestination);
  });
});
