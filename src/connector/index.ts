// The connector surface (contract §8–§12), mounted at /connector/v1: the shop's software syncs
// orders, collects matches and looks at payments and phones, with its secret key.
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import { connectorAuthenticator } from "./auth";
import { deviceViewRoutes } from "./devices-view";
import { eventViewRoutes } from "./events-view";
import { matchRoutes } from "./matches";
import { orderRoutes } from "./orders";
import { testPaymentRoutes } from "./test-payments";
import { webhookRoutes } from "../webhooks/routes";
import { notificationRoutes } from "../notifications/routes";

export const connectorRoutes = (deps: AppDeps) => {
  const authenticate = connectorAuthenticator(deps);
  return new Elysia({ prefix: "/connector/v1" })
    .use(orderRoutes(deps, authenticate))
    .use(matchRoutes(deps, authenticate))
    .use(eventViewRoutes(deps, authenticate))
    .use(deviceViewRoutes(deps, authenticate))
    .use(notificationRoutes(deps, authenticate))
    .use(testPaymentRoutes(deps, authenticate))
    .use(webhookRoutes(deps, authenticate));
};
