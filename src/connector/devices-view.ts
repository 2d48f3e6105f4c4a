// GET /connector/v1/devices: the shop's phones, seen from the connector (contract §12).
import { Elysia } from "elysia";
import { describe } from "../http/openapi";
import type { Authenticate } from "./auth";
import type { ConnectorDeps } from "./deps";
import { AUTH_ERRORS } from "./errors-doc";
import { DevicesResponseSchema, EXAMPLE_DEVICE } from "./model";
import { listDevices } from "./views.service";

export const deviceViewRoutes = (deps: ConnectorDeps, authenticate: Authenticate) =>
  new Elysia().get(
    "/devices",
    ({ request }) => {
      const caller = authenticate(request);
      return listDevices(deps.store, caller, deps.clock.now());
    },
    describe({
      tag: "Connector",
      summary: "List phones",
      operationId: "listDevices",
      description:
        "The phones linked to this key's tenant and environment, revoked ones included. `online` is true while the phone's newest signed heartbeat is at most 180 000 ms (three heartbeat intervals) old; replaying an old request cannot make a silent phone look alive. `health` holds the fields of the latest heartbeat (battery, notification access, queue depth…), `{}` before the first one.",
      success: { status: 200, description: "The phones", schema: DevicesResponseSchema, example: { data: [EXAMPLE_DEVICE] } },
      errors: [...AUTH_ERRORS],
      security: "connector",
    }),
  );
