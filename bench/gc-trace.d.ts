export declare function isGcLine(line: string): boolean;
export declare function isCollection(line: string): boolean;
export declare function reducerDone(lines: readonly string[]): boolean;
export declare function isMarkCompact(line: string): boolean;
export declare function isAskedScavenge(line: string): boolean;
