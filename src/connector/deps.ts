// What the connector surface needs from the app: the read connection, the writer,
// the one clock and the rate limiters.
import type { AppDeps } from "../deps";

export type ConnectorDeps = Pick<AppDeps, "store" | "clock" | "limiters" | "writer">;
