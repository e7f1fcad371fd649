export declare const PAUSE_SLACK_MS: number;
export interface RequestAnalysis {
  calls: number;
  refused: number;
  rounds: number;
  unasked: number;
  span: number;
  ratio: number;
  learned: number;
}
export declare function analyseRequests(seen: readonly { time: number; status: number | string }[], bound: number, retryAfterMs?: number): RequestAnalysis;
export declare function sendsDuringPauses(stderr: string): { sends: number; throttles: number; early: number };
