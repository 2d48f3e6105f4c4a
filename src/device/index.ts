// The device surface (contract §4–§7), mounted at /device/v1: activation and time (unsigned),
// events and heartbeat (signed; see auth.ts).
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { activationRoutes } from "./activation";
import { eventRoutes } from "./events";
import { heartbeatRoutes } from "./heartbeat";

export const deviceRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: "/device/v1" }).use(activationRoutes(deps)).use(eventRoutes(deps)).use(heartbeatRoutes(deps));
