// Prose of the OpenAPI document. The signing example is computed from fixed inputs by the real
// signing code when the module loads, so it cannot drift from it; test/signing.test.ts recomputes
// it independently (node:crypto and the openssl one-liner).
import { signRequest, stringToSign } from "../device/signing";
import { sha256Hex } from "../ids";

export const SIGNING_EXAMPLE = {
  secret: "q9v3XJ2mB7tKpL0wZcR4yH8sNdF6gA1eUoI5jTbVxQk",
  timestamp: "1795262400000",
  method: "POST",
  path: "/device/v1/events",
  body: '{"event_id":"0b7f6a5e-2c1d-4e8f-9a3b-5c6d7e8f9a0b","kind":"payment.received","occurred_at":1795262395000,"source":"yape","amount":2500,"currency":"PEN","payer_name":"Yanina Man*","security_code":"482"}',
};

export const signingExample = () => {
  const { secret, timestamp, method, path, body } = SIGNING_EXAMPLE;
  return {
    ...SIGNING_EXAMPLE,
    bodyHash: sha256Hex(body),
    stringToSign: stringToSign(timestamp, method, path, body),
    signature: signRequest(secret, timestamp, method, path, body),
  };
};

const ex = signingExample();

export const DEVICE_SIGNATURE_DESCRIPTION = `Used by the Cuadra phone app, which signs every request itself: a browser cannot, so "Try it out" is for the
connector. Activation and \`GET /device/v1/time\` are unsigned.

**Pairing and pinning.** The box gives a phone a *pairing URI*, as text and as a QR code (\`cuadra code create\`):
\`cuadra://pair?url=https%3A%2F%2F192.168.1.20%3A8443&code=WDJB-MJHT-KXQP&fp=bd5d8d31…2a09\`: the box's base URL
(percent-encoded), the activation code, and \`fp\`, the SHA-256 of the box's TLS certificate (64 lower-case hex digits;
left out when the box serves plain HTTP). The app activates at \`url\` only over a TLS connection whose certificate has
that fingerprint, checks that the answer's \`tls_fingerprint\` is the same, and from then on pins it: it trusts the box
by its fingerprint, never by the name or address in the certificate (the box's certificate is self-signed). When the
box does not answer, the app browses DNS-SD \`_cuadra._tcp\` on the local network (multicast DNS): the box announces
itself as \`Cuadra <shop name>\` with its port and TXT records \`v=1\`, \`path=/device/v1\` and \`fp=<fingerprint>\`; the app
moves to the instance whose \`fp\` is its pin.

**Signing device requests.** Every other device request carries four headers:
\`X-Device-Id\`, \`X-Timestamp\` (epoch ms), \`X-Signature-Alg: HMAC-SHA256\` and \`X-Signature\`.

    string_to_sign = X-Timestamp + "\\n" + METHOD + "\\n" + PATH + "\\n" + hex(sha256(BODY))
    X-Signature    = hex(hmac_sha256(key = UTF-8 bytes of the secret, string_to_sign))

- \`X-Timestamp\` is the decimal text exactly as sent; \`METHOD\` upper case; \`PATH\` the request target as sent, query included.
- \`BODY\` is the raw body bytes (an empty body hashes the empty string). Hex is lower case.
- Allowed clock skew: ±300 000 ms. A wrong clock gets \`401 timestamp_out_of_window\` with \`server_time\`.

**Worked example** (reproduce it to check your client):

- secret: \`${ex.secret}\`
- X-Timestamp: \`${ex.timestamp}\`
- method and path: \`${ex.method} ${ex.path}\`
- body: \`${ex.body}\`
- sha256(body): \`${ex.bodyHash}\`
- X-Signature: \`${ex.signature}\`

Shell: \`printf '%s\\n%s\\n%s\\n%s' "$TS" POST /device/v1/events "$(printf '%s' "$BODY" | sha256sum | cut -d' ' -f1)" | openssl dgst -sha256 -hmac "$SECRET" -hex | sed 's/^.*= //'\` (openssl prints \`SHA2-256(stdin)= \` before the hex; sed keeps the hex).`;

export const API_DESCRIPTION = `Cuadra confirms wallet payments (Yape, Plin, bank apps) for a shop.

Two surfaces:
- **Device** (\`/device/v1\`): the Cuadra phone app activates with a one-time code, then sends signed payment events and heartbeats.
- **Connector** (\`/connector/v1\`): the shop's software syncs its pending orders and collects matches, with its secret key.

Conventions: JSON in UTF-8 (\`Content-Type: application/json\`); times are epoch milliseconds UTC; amounts are integer cents;
currency is \`PEN\`; unknown fields are ignored. Errors are RFC 9457 problem details (\`application/problem+json\`) with a
machine \`code\`. Every response carries \`X-Request-Id\` (send your own, up to 64 of \`[A-Za-z0-9._-]\`, and it is echoed).
Body limits: activation 4 KiB, other device bodies 64 KiB, connector bodies 1 MiB (\`413 payload_too_large\`).
Rate limits are token buckets: \`429 rate_limited\` with \`Retry-After\`, \`RateLimit-Policy\` and \`RateLimit\`.
\`503 service_unavailable\` with \`Retry-After\` means the database stayed busy with another write for 5 s (a large order
sync, say): nothing of the request was stored; send the same request again.`;
