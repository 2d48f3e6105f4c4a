// GET /docs (Swagger UI) and GET /docs/json (OpenAPI). The UI's script and stylesheet are embedded
// in the binary and served from here, so the page loads nothing from another host (contract §1).
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import { ApiError } from "../http/errors";
import { ProblemSchema, LicenseSchema } from "../http/schemas";
import { VERSION } from "../version";
import { API_DESCRIPTION, DEVICE_SIGNATURE_DESCRIPTION } from "./docs-text";
import { WEBHOOKS_DESCRIPTION } from "../webhooks/model";

const ASSETS = {
  "swagger-ui-bundle.js": { file: swaggerBundle, type: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { file: swaggerCss, type: "text/css; charset=utf-8" },
} as const;

/**
 * The box's icon: browsers ask for /favicon.ico on every page (the Swagger page included), and a
 * 404 there shows as an error in the developer's console. A green square with a check mark.
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0a7d4f"/>' +
  '<path d="M8 17l5 5 11-12" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>';

/**
 * Swagger UI sets a section's name beside its description; its code blocks (how to sign, how to
 * verify a webhook) then ran past the screen, 1 000 px on a phone and 70 px on a desktop: their code
 * wraps. Below 700 px the description goes under the name, and the responses' "Links" column
 * (always "No links" here) is left out, as it pushed every opened operation 50 px past a phone's
 * screen.
 */
const NARROW_SCREEN_CSS = `
.swagger-ui .opblock-tag small { min-width: 0; }
.swagger-ui .opblock-tag small code, .swagger-ui .opblock-tag small pre { white-space: pre-wrap; overflow-wrap: anywhere; }
@media (max-width: 700px) {
  .swagger-ui .opblock-tag { flex-wrap: wrap; }
  .swagger-ui .opblock-tag small { flex: 1 1 100%; padding: 0 0 8px; }
  .swagger-ui .response-col_links { display: none; }
}
`;

/** The stylesheet with the narrow-screen rules after it, read from the binary once. */
let stylesheet: Promise<string> | null = null;

export const docsAssets = new Elysia({ name: "docs-assets" })
  .get(
    "/docs/assets/:name",
    async ({ params }) => {
      const asset = ASSETS[params.name as keyof typeof ASSETS];
      if (!asset) throw new ApiError("not_found", `No documentation asset ${params.name}`);
      const body = asset.file === swaggerCss ? await (stylesheet ??= Bun.file(swaggerCss).text().then((css) => css + NARROW_SCREEN_CSS)) : Bun.file(asset.file);
      return new Response(body, {
        headers: { "content-type": asset.type, "cache-control": "public, max-age=86400" },
      });
    },
    { detail: { hide: true } },
  )
  .get(
    "/favicon.ico",
    () => new Response(FAVICON_SVG, { headers: { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" } }),
    { detail: { hide: true } },
  );

/**
 * A new plugin per app: the plugin answers /docs with one static Response, and Elysia clones it
 * when an app mounts it. Shared between apps (tests make many in one process), a body already read
 * made every later createApp throw "Body is disturbed or locked".
 */
export const docs = () =>
  openapi({
    path: "/docs",
    specPath: "/docs/json",
    provider: "swagger-ui",
    swagger: {
      cdn: "/docs/assets/swagger-ui-bundle.js",
      theme: "/docs/assets/swagger-ui.css",
      validatorUrl: "none",
      // Absolute: the plugin's own value ("docs/json", relative) broke the page when opened as /docs/.
      // Its types leave `url` out because it sets it, but it spreads these options after its own.
      ...({ url: "/docs/json" } as {}),
    },
    documentation: {
      info: { title: "Cuadra", version: VERSION, description: API_DESCRIPTION, license: { name: "Proprietary: the Cuadra box and its documentation", identifier: "LicenseRef-Proprietary" } },
      tags: [
        { name: "Connector", description: "Used by the shop's software, with its secret key `sk_live_…` / `sk_test_…`: press Authorize, paste a test key, and try any operation." },
        { name: "Webhooks", description: WEBHOOKS_DESCRIPTION },
        { name: "Device", description: DEVICE_SIGNATURE_DESCRIPTION },
        { name: "System", description: "Health and documentation; no authentication." },
      ],
      components: {
        schemas: { Problem: ProblemSchema as never, License: LicenseSchema as never },
        securitySchemes: {
          ConnectorKey: {
            type: "http",
            scheme: "bearer",
            description: "`Authorization: Bearer sk_live_…` (or `sk_test_…`). The key decides tenant and environment. Never in the query string.",
          },
          ConnectorKeyBasic: {
            type: "http",
            scheme: "basic",
            description: "HTTP Basic with the key as user name and an empty password.",
          },
          // Not an apiKey: a signature differs per request, so Swagger UI offers no value box for it.
          DeviceSignature: {
            type: "http",
            scheme: "hmac-sha256",
            description:
              "Signed per request by the Cuadra app with the secret it received on activation: headers `X-Device-Id`, `X-Timestamp`, `X-Signature-Alg: HMAC-SHA256`, `X-Signature`. How to sign, with a worked example: the Device section of this page.",
          },
        },
      },
    },
  });
