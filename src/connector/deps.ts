// What the connector surface needs from the app: the store, the one clock and the rate limiters.
import type { AppDeps } from "../app";

export type ConnectorDeps = Pick<AppDeps, "store" | "clock" | "limiters" | "events">;
