export declare function deepTbx(count: number): Buffer;
export declare function amplifiedWorkbook(rows: number, stringBytes: number): Promise<Buffer>;
export declare function longWorkbook(rows: number, cells: number): Promise<Buffer>;
