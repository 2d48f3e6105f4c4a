// The one clock. Everything that depends on time (expiry, skew, liveness, rate limits) reads it,
// so tests can move time without sleeping.
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock for tests: starts where you say and moves only when told. */
export class ManualClock implements Clock {
  constructor(private t: number = Date.UTC(2026, 10, 21, 12, 0, 0)) {}
  now(): number {
    return this.t;
  }
  set(ms: number): void {
    this.t = ms;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
