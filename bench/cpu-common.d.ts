// Types of what the tests take from cpu-common.js (the benchmark repositories and the emulator process).
export declare const HERE: string;
export declare const ROOT: string;
export declare function generateMany(root: string, glossaries?: number, entries?: number): Promise<void>;
export interface EmulatorProcess {
  readonly url: string;
  readonly pid: number | undefined;
  reset(): Promise<void>;
  faults(spec: string): Promise<void>;
  close(): Promise<void>;
}
export declare function startEmulatorProcess(options?: { latency?: string; extra?: readonly string[] }): Promise<EmulatorProcess>;
