// The connector surface (contract §8–§12), mounted at /connector/v1.
import { Elysia } from "elysia";
import type { AppDeps } from "../app";

export const connectorRoutes = (_deps: AppDeps) => new Elysia({ prefix: "/connector/v1" });
