import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './harness.js';

let world: World;
beforeEach(async () => {
  world = await createWorld('basic');
});
afterEach(async () => {
  await world.close();
});

describe('a lock path the repository chose', () => {
  it('a committed, dangling `.termsync.lock` symbolic link: apply and plan --out end with exit 5 at once, nothing written', async () => {
    // It made apply spin at 100 % CPU forever.
    await symlink('/nonexistent/termsync-lock-target', join(world.dir, '.termsync.lock'));
    for (const argv of [['apply'], ['plan', '--out', join(world.dir, 'plan.json')]]) {
      const run = await world.cli(argv);
      expect(run.code, argv[0]).toBe(5);
      expect(run.stderr).toContain('.termsync.lock is a symbolic link, not a lock file termsync wrote');
    }
    expect(world.writesSince(0)).toEqual([]);
  });
});
