/** Thrown by a long parse that stopped because the load was interrupted (its signal aborted). */
export class Interrupted extends Error {
  constructor() {
    super('the load was interrupted');
  }
}
