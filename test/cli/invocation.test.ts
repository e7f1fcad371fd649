import { describe, expect, it } from 'vitest';
import { invocationOf } from '../../src/cli/invocation.js';

describe('the command a hint names: the one that works where the user is', () => {
  const clone = '/home/ada/termsync/bin/termsync.js';
  it('from a clone, run in the clone: node bin/termsync.js', () => {
    expect(invocationOf(clone, '/home/ada/termsync', { PATH: '/usr/bin' })).toBe('node bin/termsync.js');
  });
  it('from a clone, run elsewhere: node and the absolute path (quoted when it needs it)', () => {
    expect(invocationOf(clone, '/home/ada/terminology', { PATH: '/usr/bin' })).toBe('node /home/ada/termsync/bin/termsync.js');
    expect(invocationOf('/home/ada/my tools/termsync/bin/termsync.js', '/tmp', {})).toBe("node '/home/ada/my tools/termsync/bin/termsync.js'");
  });
  it('a global install (a link named termsync in a folder of PATH): termsync', () => {
    expect(invocationOf('/usr/local/bin/termsync', '/home/ada', { PATH: '/usr/bin:/usr/local/bin' })).toBe('termsync');
  });
  it('npx or npm exec: npx termsync; the project link run directly: npx termsync', () => {
    expect(invocationOf('/repo/node_modules/.bin/termsync', '/repo', { npm_command: 'exec', PATH: '/repo/node_modules/.bin:/usr/bin' })).toBe('npx termsync');
    expect(invocationOf('/repo/node_modules/.bin/termsync', '/repo', { PATH: '/usr/bin' })).toBe('npx termsync');
  });
  it('a link named termsync that is not on PATH is run by its path', () => {
    expect(invocationOf('/opt/tools/termsync', '/home/ada', { PATH: '/usr/bin' })).toBe('node /opt/tools/termsync');
  });
  it('in-process (no script): termsync', () => {
    expect(invocationOf(undefined, '/x', {})).toBe('termsync');
  });
});
