// Reading request bodies: per-route limits decided before the body is read in full, Content-Type,
// JSON (contract §2.1, §2.5, §2.6).
import { afterAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { ApiError, problemResponse } from "../src/http/errors";
import {
  BODY_LIMITS,
  bodyLimitFor,
  checkContentType,
  checkDeclaredLength,
  isJsonContentType,
  jsonBody,
  parseJsonBytes,
  readBodyLimited,
} from "../src/http/body";
import { attachInfo, infoOf } from "../src/http/request-info";

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

async function apiErrorAsync(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
}

/** A body stream of `n` chunks of `size` bytes that counts how many chunks were pulled. */
function countingStream(n: number, size: number) {
  const state = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled === n) return controller.close();
      state.pulled++;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

describe("limits per route", () => {
  test("activation 4 KiB, other device bodies 64 KiB, connector bodies 1 MiB", () => {
    expect(BODY_LIMITS).toEqual({ activation: 4096, device: 65536, connector: 1048576 });
    expect(bodyLimitFor("/device/v1/activation")).toBe(4096);
    expect(bodyLimitFor("/device/v1/events")).toBe(65536);
    expect(bodyLimitFor("/device/v1/heartbeat")).toBe(65536);
    expect(bodyLimitFor("/connector/v1/orders")).toBe(1048576);
  });

  test("Content-Length above the limit is refused before reading, with max_bytes", () => {
    const req = new Request("http://localhost/x", { method: "POST", headers: { "content-length": "4097" } });
    const err = apiError(() => checkDeclaredLength(req, 4096));
    expect(err.status).toBe(413);
    expect(err.code).toBe("payload_too_large");
    expect(err.extra).toEqual({ max_bytes: 4096 });
    expect(() => checkDeclaredLength(new Request("http://localhost/x", { headers: { "content-length": "4096" } }), 4096)).not.toThrow();
    expect(() => checkDeclaredLength(new Request("http://localhost/x"), 1)).not.toThrow();
  });
});

describe("readBodyLimited", () => {
  test("stops reading as soon as the body passes the limit, and cancels the rest", async () => {
    const { stream, state } = countingStream(100, 1024);
    const req = new Request("http://localhost/x", { method: "POST", body: stream, duplex: "half" } as RequestInit);
    const err = await apiErrorAsync(readBodyLimited(req, 4096));
    expect(err.code).toBe("payload_too_large");
    expect(err.extra.max_bytes).toBe(4096);
    expect(state.pulled).toBeLessThan(10); // far from the 100 chunks on offer
    expect(state.cancelled).toBe(true);
  });

  test("a body of exactly the limit is read whole, chunks joined in order", async () => {
    const parts = ["{\"a\":", "\"", "x".repeat(4088), "\"}"];
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(new TextEncoder().encode(p));
        c.close();
      },
    });
    const req = new Request("http://localhost/x", { method: "POST", body: stream, duplex: "half" } as RequestInit);
    const raw = await readBodyLimited(req, 4096);
    expect(raw.byteLength).toBe(4096);
    expect(new TextDecoder().decode(raw)).toBe(parts.join(""));
  });

  test("no body reads as zero bytes", async () => {
    expect((await readBodyLimited(new Request("http://localhost/x"), 10)).byteLength).toBe(0);
  });
});

describe("Content-Type and JSON", () => {
  test("application/json with parameters, any case", () => {
    expect(isJsonContentType("application/json")).toBe(true);
    expect(isJsonContentType("application/json; charset=utf-8")).toBe(true);
    expect(isJsonContentType("Application/JSON;charset=UTF-8")).toBe(true);
    expect(isJsonContentType("text/plain")).toBe(false);
    expect(isJsonContentType("application/jsonp")).toBe(false);
    expect(isJsonContentType("application/problem+json")).toBe(false);
    expect(isJsonContentType(null)).toBe(false);
  });

  test("a body that is not declared JSON is 415; no body needs no Content-Type", () => {
    const plain = new Request("http://localhost/x", { method: "POST", body: "{}", headers: { "content-type": "text/plain" } });
    const err = apiError(() => checkContentType(plain));
    expect(err.status).toBe(415);
    expect(err.code).toBe("unsupported_media_type");
    expect(() => checkContentType(new Request("http://localhost/x", { method: "POST" }))).not.toThrow();
    expect(() => checkContentType(new Request("http://localhost/x", { method: "POST", headers: { "content-length": "0" } }))).not.toThrow();
    expect(() =>
      checkContentType(new Request("http://localhost/x", { method: "POST", body: "{}", headers: { "content-type": "application/json; charset=utf-8" } })),
    ).not.toThrow();
  });

  test("JSON parsing: empty is {}, invalid JSON and invalid UTF-8 are malformed_json", () => {
    expect(parseJsonBytes(new Uint8Array(0))).toEqual({});
    expect(parseJsonBytes(new TextEncoder().encode('{"amount":2500,"payer":"Ñandú"}'))).toEqual({ amount: 2500, payer: "Ñandú" });
    const bad = apiError(() => parseJsonBytes(new TextEncoder().encode("{amount:")));
    expect(bad.status).toBe(400);
    expect(bad.code).toBe("malformed_json");
    expect(apiError(() => parseJsonBytes(new Uint8Array([0x22, 0xff, 0xfe, 0x22]))).code).toBe("malformed_json");
  });

  test("jsonBody keeps the exact raw bytes on the request info (signatures are over them)", async () => {
    const text = '{ "b":1,   "a":[2] }';
    const req = new Request("http://localhost/device/v1/events", { method: "POST", body: text, headers: { "content-type": "application/json" } });
    attachInfo(req, { requestId: "req_t", startedAt: 0, clientAddress: "127.0.0.1" });
    expect(await jsonBody({ request: req })).toEqual({ b: 1, a: [2] });
    expect(new TextDecoder().decode(infoOf(req).rawBody!)).toBe(text);
  });

  test("jsonBody applies the limit of the route's path", async () => {
    const big = JSON.stringify({ label: "x".repeat(5000) });
    const activation = new Request("http://localhost/device/v1/activation", { method: "POST", body: big, headers: { "content-type": "application/json" } });
    expect((await apiErrorAsync(jsonBody({ request: activation }))).extra.max_bytes).toBe(4096);
    const events = new Request("http://localhost/device/v1/events", { method: "POST", body: big, headers: { "content-type": "application/json" } });
    expect(await jsonBody({ request: events })).toEqual({ label: "x".repeat(5000) });
  });
});

describe("over a real socket", () => {
  // Bun.serve with the same reader; the client sends a chunked body (no Content-Length) and never
  // finishes it. The 413 must arrive anyway: decided on the bytes read, not after the whole body.
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      try {
        const raw = await readBodyLimited(req, 1024);
        return new Response(String(raw.byteLength));
      } catch (e) {
        return problemResponse(e as ApiError, "req_socket");
      }
    },
  });
  afterAll(() => server.stop(true));

  function rawExchange(head: string, chunks: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const sock = connect(server.port!, "127.0.0.1");
      let received = "";
      const timer = setTimeout(() => {
        sock.destroy();
        reject(new Error(`no answer; got ${JSON.stringify(received)}`));
      }, 5000);
      sock.on("data", (d) => {
        received += d.toString();
        const end = received.indexOf("\r\n\r\n");
        const len = /content-length: (\d+)/i.exec(received)?.[1];
        if (end >= 0 && len && received.length >= end + 4 + Number(len)) {
          clearTimeout(timer);
          sock.destroy();
          resolve(received);
        }
      });
      sock.on("error", reject);
      sock.on("connect", () => {
        sock.write(head);
        for (const c of chunks) sock.write(c);
      });
    });
  }

  const chunk = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`;

  test("a chunked body over the limit gets 413 before the client has finished sending", async () => {
    const head = "POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    const answer = await rawExchange(head, [chunk("a".repeat(800)), chunk("a".repeat(800))]); // no final 0-chunk
    expect(answer).toStartWith("HTTP/1.1 413");
    const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
    expect(body).toMatchObject({ code: "payload_too_large", status: 413, max_bytes: 1024 });
  });

  test("a chunked body within the limit is read whole", async () => {
    const head = "POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    const answer = await rawExchange(head, [chunk("a".repeat(500)), chunk("b".repeat(500)), "0\r\n\r\n"]);
    expect(answer).toStartWith("HTTP/1.1 200");
    expect(answer.endsWith("\r\n\r\n1000")).toBe(true);
  });
});
