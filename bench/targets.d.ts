interface Stats {
  median: number;
  min: number;
  max: number;
}
interface Row {
  cpu: Stats;
  rssMb: Stats;
}
export declare const BIG_APPLY: { cpu: number; rssMb: number };
export declare const BIG_PLAN_CPU: number;
export declare const BIG_PLAN_CHANGES: number;
export declare const MANY_RATIO: number;
export declare const MANY_RSS_MB: number;
export declare const VALIDATE_WALL: number;
export declare const SCALE_START: number;
export declare const STARTUP_WALL: number;
export declare const STARTUP_RATIO: { plain: number; ca: number };
export declare const WORKBOOK_MS_PER_MIB: number;
export declare const WORKBOOK_RSS_MB: number;
export declare const FIRST_LOAD: number;
export declare const EDIT_WINDOW: number;
export declare const EDIT_BEYOND: number;
export declare const DAEMON_RSS_MB: number;
export declare const IDLE_PERCENT: number;
export declare const bigApplyGoal: string;
export declare function bigApplyMet(row: Row): boolean;
export declare const bigPlanGoal: string;
export declare function bigPlanMet(rows: readonly Row[]): boolean;
export declare const manyPlanGoal: string;
export declare function manyPlanMet(plan: Row, script: Row): boolean;
export declare function validateWallBudget(glossaries: number): number;
export declare function firstLoadBudget(glossaries: number): number;
export declare function startupGoal(ratio: number): string;
export declare function idleShare(cpuSecondsPerWindow: readonly number[], windowSeconds: number, clkTck?: number): { percent: number; resolution: number; ticks: number; seconds: number; met: boolean };
