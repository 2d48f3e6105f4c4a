// contract §6: the pure parts of payment events — duplicate rules, canonical body, semantic checks.
import { describe, expect, test } from "bun:test";
import { DomainError } from "../src/errors";
import { duplicateRule, findOriginal, type Report, type StoredReport } from "../src/payments/duplicates";
import { bodyHashOf } from "../src/payments/ingest";
import { canonicalJson, checkPaymentEvent, parsePaymentEvent } from "../src/payments/model";

const T0 = 1_795_262_400_000;

const report = (over: Partial<Report> = {}): Report => ({
  deviceId: "dev_A",
  source: "yape",
  amount: 2500,
  occurredAt: T0,
  payerName: "Yanina Man*",
  securityCode: "482",
  reference: null,
  ...over,
});

const stored = (seq: number, over: Partial<StoredReport> = {}): StoredReport => ({
  ...report({ deviceId: "dev_B" }),
  seq,
  eventId: `e${seq}`,
  matchStatus: "unmatched",
  ...over,
});

describe("duplicateRule", () => {
  test.each<[string, Partial<Report>, Partial<Report>, ReturnType<typeof duplicateRule>]>([
    ["same details from another phone", {}, { deviceId: "dev_B" }, "details"],
    ["same reference, other amount and time", { reference: "OP1" }, { deviceId: "dev_B", reference: "OP1", amount: 1, occurredAt: T0 + 86_400_000 }, "reference"],
    ["same phone never", {}, {}, null],
    ["test payments (no phone) never", { deviceId: null }, { deviceId: "dev_B" }, null],
    ["other source", {}, { deviceId: "dev_B", source: "plin" }, null],
    ["other amount", {}, { deviceId: "dev_B", amount: 2501 }, null],
    ["other payer", {}, { deviceId: "dev_B", payerName: "Yanina Manrique" }, null],
    ["payer only on one side", {}, { deviceId: "dev_B", payerName: null }, null],
    ["no payer on both sides", { payerName: null }, { deviceId: "dev_B", payerName: null }, "details"],
    ["occurred 120 000 ms apart", {}, { deviceId: "dev_B", occurredAt: T0 - 120_000 }, "details"],
    ["occurred 120 001 ms apart", {}, { deviceId: "dev_B", occurredAt: T0 + 120_001 }, null],
    ["other security code", {}, { deviceId: "dev_B", securityCode: "483" }, null],
    ["security code only on one side", {}, { deviceId: "dev_B", securityCode: null }, "details"],
    ["reference only on one side: details decide", { reference: "OP1" }, { deviceId: "dev_B" }, "details"],
    ["different references but same details (the contract's 'or')", { reference: "OP1" }, { deviceId: "dev_B", reference: "OP2" }, "details"],
    ["same reference, other source", { reference: "OP1" }, { deviceId: "dev_B", reference: "OP1", source: "plin" }, null],
  ])("%s", (_name, a, b, expected) => {
    expect(duplicateRule(report(a), report(b))).toBe(expected);
  });
});

describe("findOriginal", () => {
  test("none qualify → null", () => {
    expect(findOriginal(report(), [stored(1, { amount: 1 }), stored(2, { deviceId: "dev_A" })])).toBeNull();
  });

  test("prefers an original over a duplicate, then a reference match, then the closest time, then the earliest", () => {
    const incoming = report({ reference: "OP9" });
    const dup = stored(1, { matchStatus: "duplicate", reference: "OP9" });
    const far = stored(2, { occurredAt: T0 - 100_000 });
    const near = stored(3, { occurredAt: T0 + 10_000 });
    const nearLater = stored(4, { occurredAt: T0 - 10_000 });
    expect(findOriginal(incoming, [dup, far, near, nearLater])?.seq).toBe(3);
    const byRef = stored(5, { reference: "OP9", amount: 1 });
    expect(findOriginal(incoming, [dup, far, near, byRef])?.seq).toBe(5);
    expect(findOriginal(incoming, [dup])?.seq).toBe(1);
  });
});

describe("event body", () => {
  const body = {
    event_id: "e-1",
    kind: "payment.received",
    occurred_at: T0,
    source: "yape",
    amount: 2500,
    currency: "PEN",
    payer_name: "Yanina Man*",
    raw: { text: "hola", title: null },
  };

  test("unknown fields, nulls and empty optional strings do not change the canonical hash", () => {
    const a = parsePaymentEvent(body);
    const b = parsePaymentEvent({ ...body, extra: 1, reference: "", security_code: null, raw: { text: "hola", icon: "x" } });
    const reordered = parsePaymentEvent(Object.fromEntries(Object.entries(body).reverse()));
    expect(bodyHashOf(b)).toBe(bodyHashOf(a));
    expect(bodyHashOf(reordered)).toBe(bodyHashOf(a));
    expect(bodyHashOf(parsePaymentEvent({ ...body, amount: 2501 }))).not.toBe(bodyHashOf(a));
    expect(bodyHashOf(parsePaymentEvent({ ...body, raw: { text: "hola!" } }))).not.toBe(bodyHashOf(a));
  });

  test("canonicalJson sorts keys at every level", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
  });

  test.each<[string, Record<string, unknown>, string, string]>([
    ["amount as a string", { amount: "2500" }, "invalid_request", "/amount"],
    ["amount 0", { amount: 0 }, "invalid_request", "/amount"],
    ["amount above 100 000 000", { amount: 100_000_001 }, "invalid_request", "/amount"],
    ["fractional amount", { amount: 25.5 }, "invalid_request", "/amount"],
    ["event_id with a space", { event_id: "a b" }, "invalid_request", "/event_id"],
    ["event_id of 65 characters", { event_id: "a".repeat(65) }, "invalid_request", "/event_id"],
    ["source in capitals", { source: "Yape" }, "invalid_request", "/source"],
    ["payer_name of 129", { payer_name: "x".repeat(129) }, "invalid_request", "/payer_name"],
    ["security_code of 17", { security_code: "1".repeat(17) }, "invalid_request", "/security_code"],
    ["reference of 65", { reference: "1".repeat(65) }, "invalid_request", "/reference"],
    ["raw.text of 1025", { raw: { text: "x".repeat(1025) } }, "invalid_request", "/raw/text"],
    ["missing occurred_at", { occurred_at: undefined }, "invalid_request", "/occurred_at"],
  ])("%s → %s at %s", (_name, over, code, field) => {
    try {
      parsePaymentEvent({ ...body, ...over });
      throw new Error("accepted");
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      expect((e as DomainError).code).toBe(code as never);
      expect(((e as DomainError).extra.errors as { field: string }[]).map((x) => x.field)).toContain(field);
    }
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["other kind", { kind: "payment.sent" }, "unsupported_event_kind"],
    ["USD", { currency: "USD" }, "unsupported_currency"],
    ["more than 300 000 ms ahead", { occurred_at: T0 + 300_001 }, "invalid_request"],
    ["older than 30 days", { occurred_at: T0 - 30 * 86_400_000 - 1 }, "event_too_old"],
  ])("semantic check: %s → %s", (_name, over, code) => {
    const ev = parsePaymentEvent({ ...body, ...over });
    expect(() => checkPaymentEvent(ev, T0)).toThrow(expect.objectContaining({ code }));
  });

  test("the edges are accepted: 300 000 ms ahead, exactly 30 days old", () => {
    expect(() => checkPaymentEvent(parsePaymentEvent({ ...body, occurred_at: T0 + 300_000 }), T0)).not.toThrow();
    expect(() => checkPaymentEvent(parsePaymentEvent({ ...body, occurred_at: T0 - 30 * 86_400_000 }), T0)).not.toThrow();
  });
});

describe("duplicates by details, through ingestion and its database query (contract §6)", () => {
  // The pure rule above decides among candidates; these check that the query finds the candidates
  // at the very edges of the ±120 000 ms window.
  const edge = async (offset: number) => {
    const { makeTestApp } = await import("./support/harness");
    const { pay } = await import("./support/connector");
    const t = await makeTestApp();
    try {
      const ten = t.tenant();
      const scope = { tenantId: ten.tenant_id, environment: "live" as const };
      const at = t.clock.now() - 10 * 60_000;
      const spec = { amount: 2500, payerName: "Yanina Man*", securityCode: "482" };
      const first = await pay(t, scope, { ...spec, deviceId: "dev_edge_A", occurredAt: at });
      expect(first.match.status).toBe("unmatched");
      return (await pay(t, scope, { ...spec, deviceId: "dev_edge_B", occurredAt: at + offset })).match.status;
    } finally {
      await t.close();
    }
  };

  test.each([
    [120_000, "duplicate"],
    [-120_000, "duplicate"],
    [119_999, "duplicate"],
    [120_001, "unmatched"],
    [-120_001, "unmatched"],
  ])("the second phone's report %p ms after the first → %p", async (offset, expected) => {
    expect(await edge(offset)).toBe(expected);
  });
});
