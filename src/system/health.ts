// GET /healthz (contract §1): unauthenticated, cheap, and honest about the database.
import { Elysia } from "elysia";
import type { Writer } from "../store/writer";
import type { Store } from "../store/db";
import { T } from "../http/schemas";
import { describe } from "../http/openapi";
import { VERSION } from "../version";

const Health = T.Object(
  {
    status: T.Union([T.Literal("ok"), T.Literal("unavailable")], { description: "`ok`, or `unavailable` when the database cannot be used" }),
    version: T.String({ description: "The running Cuadra version", examples: ["0.1.0"] }),
  },
  { $id: "#/components/schemas/HealthStatus", description: "Whether the box can serve" },
);

export const healthRoutes = (store: Store, writer: Writer) =>
  new Elysia().get(
    "/healthz",
    () => {
      try {
        store.sqlite.query("SELECT 1").get();
        // Every write goes through the writer thread (contract §14).
        if (!writer.running()) throw new Error("writer down");
        return Response.json({ status: "ok", version: VERSION });
      } catch {
        return Response.json({ status: "unavailable", version: VERSION }, { status: 503 });
      }
    },
    describe({
      tag: "System",
      summary: "Health check",
      description:
        "`200` while the database answers; `503` with `status: unavailable` when it cannot be used, including while the thread that makes every write is down (it is restarted by itself).",
      success: { status: 200, description: "Healthy", schema: Health, example: { status: "ok", version: VERSION } },
      errors: [],
      responses: {
        "503": {
          description: "The database cannot be used",
          content: { "application/json": { schema: Health, example: { status: "unavailable", version: VERSION } } },
        },
      },
    }),
  );
