import type { EmulatorOptions, RunningEmulator } from './emulator-types.js';
import { startEmulatorServer } from './emulator-server.js';

export type { EmulatorBehaviour, EmulatorOptions, InjectOnceFault, RequestLogEntry, RunningEmulator } from './emulator-types.js';
export { BEHAVIOUR_FLAGS } from './emulator-types.js';
export { parseFaultSpec } from './parse-faults.js';

/** Starts the in-memory service emulator on a real HTTP server; resolves once it accepts connections. */
export function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulatorServer(options);
}
