// Standard Webhooks signatures (contract §15; https://www.standardwebhooks.com): secrets are
// `whsec_` + base64 of 32 random bytes; the signature of an attempt is
// `v1,` + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)) with the base64-decoded key,
// one per valid secret, separated by spaces.
import { createHmac } from "node:crypto";

export const SECRET_PREFIX = "whsec_";

export function newWebhookSecret(): string {
  return SECRET_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
}

/** The value of `webhook-signature` for one attempt, signed with each secret in turn. */
export function signatureHeader(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
      return `v1,${createHmac("sha256", key).update(`${messageId}.${timestampSeconds}.${body}`).digest("base64")}`;
    })
    .join(" ");
}
