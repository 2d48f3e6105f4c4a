// The device surface (contract §4–§7), mounted at /device/v1.
import { Elysia } from "elysia";
import type { AppDeps } from "../app";

export const deviceRoutes = (_deps: AppDeps) => new Elysia({ prefix: "/device/v1" });
