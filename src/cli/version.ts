/** The release version; the same as package.json's (test/cli/bundle.test.ts and test/release hold them together). */
export const VERSION = '0.1.0';
