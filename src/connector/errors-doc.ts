// Errors every connector route can answer, for the OpenAPI document.
import { BODY_LIMITS } from "../http/body";

import type { ErrorSpec } from "../http/openapi";

export type { ErrorSpec };

/** contract §8, §2.7 */
export const AUTH_ERRORS: ErrorSpec[] = ["api_key_missing", "api_key_invalid", ["rate_limited", { retry_after: 1 }]];

/** contract §2.1, §2.5, §2.6: connector bodies are limited to 1 MiB. */
export const BODY_ERRORS: ErrorSpec[] = ["malformed_json", "unsupported_media_type", ["payload_too_large", { max_bytes: BODY_LIMITS.connector }]];
