export declare const NOT_BENCHES: ReadonlySet<string>;
export declare const SKIPPED: ReadonlyMap<string, string>;
export declare function areaScripts(names: readonly string[], only?: readonly string[]): { run: string[]; skipped: { name: string; reason: string }[] };
