// What the routes of both surfaces are given (createApp in app.ts passes it down). It lives below
// the surfaces, so that nothing imports from the file that mounts it.
import type { Clock } from "./clock";
import type { RateLimiters } from "./http/rate-limit";
import type { Logger } from "./log";
import type { Recognise } from "./notifications/recogniser";
import type { Store } from "./store/db";
import type { SecretBox } from "./store/secret-box";
import type { Writer } from "./store/writer";

export interface AppConfig {
  /** serve --public-url: the base address phones are told to use (contract §4). */
  publicUrl?: string;
  /** SHA-256 of the certificate served (contract §17 form); null or absent without TLS. */
  tlsFingerprint?: string | null;
  /** Where phones reach the box (contract §17's base URL), set by serve once it listens. */
  boxUrl?: string;
}

export interface AppDeps {
  /** The HTTP thread's connection: reads only (PRAGMA query_only); every write goes to `writer`. */
  store: Store;
  /** The one writer (contract §14). */
  writer: Writer;
  clock: Clock;
  logger: Logger;
  limiters: RateLimiters;
  secretBox: SecretBox;
  config: AppConfig;
  /** Reads wallet notifications (contract §16): the box's own formats, or a test's. */
  recognise: Recognise;
}
