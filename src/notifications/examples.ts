// Examples of notification events for the OpenAPI document, one per wallet format, each answered by
// the recogniser itself so that the document shows what the box really reads.
import { NOTIFICATION_POSTED, receiptOf, type NotificationEvent } from "./model";
import { recognise } from "./recogniser";

const OCCURRED_AT = 1795262395000;
const RECEIVED_AT = 1795262400120;

const CASES: { key: string; summary: string; package: string; title?: string; text: string }[] = [
  { key: "yape", summary: "Yape, masked name and security code", package: "com.bcp.innovacxion.yapeapp", title: "Confirmación de Pago", text: "Yanina Man* te envió un pago por S/ 56.7. El cód. de seguridad es: 666" },
  { key: "yape_full_name", summary: "Yape, `Yape!` and a full name (from a bank or a company)", package: "com.bcp.innovacxion.yapeapp", title: "Confirmación de Pago", text: "Yape! QUANTIO SOLUTIONS E.I.R.L. te envió un pago por S/ 1.00" },
  { key: "plin_interbank", summary: "Plin in Interbank's app", package: "pe.com.interbank.mobilebanking", text: "Luis Alberto Albarran Jara te ha plineado S/ 1.00" },
  { key: "plin_bbva", summary: "Plin in BBVA's app", package: "com.bbva.nxt_peru", title: "¡Recibiste un Plin! 💸", text: "ADRIAN ISSAC MAMANI te plineó S/1 ." },
  { key: "bbva_qr", summary: "BBVA's QR charge", package: "com.bbva.nxt_peru", title: "Cobro con QR", text: "SANDRO RISSO MORON te hizo un pago de S/ 23.9" },
  { key: "not_a_payment", summary: "A Yape promotion (not a payment: its text is not kept)", package: "com.bcp.innovacxion.yapeapp", text: "¿Sin dinero? Solicita tu préstamo por S/2,000 preaprobados, págalo en 6 cuotas" },
  { key: "redacted", summary: "Android hid the text (unrecognized, android.redacted)", package: "com.bcp.innovacxion.yapeapp", title: "Yape", text: "Sensitive notification content hidden" },
];

const eventOf = (c: (typeof CASES)[number], i: number): NotificationEvent => ({
  event_id: `7c1e0f2a-5b3d-4e6f-8a9b-0c1d2e3f4a5${i}`,
  kind: NOTIFICATION_POSTED,
  occurred_at: OCCURRED_AT,
  raw: { package: c.package, ...(c.title ? { title: c.title } : {}), text: c.text },
});

export const NOTIFICATION_REQUEST_EXAMPLES = Object.fromEntries(CASES.map((c, i) => [c.key, { summary: c.summary, value: eventOf(c, i) }]));

export const NOTIFICATION_RESPONSE_EXAMPLES = Object.fromEntries(
  CASES.map((c, i) => {
    const reading = recognise(eventOf(c, i).raw);
    const match = reading.status === "payment" ? { status: i === 0 ? ("matched" as const) : ("unmatched" as const), order_id: i === 0 ? "A-1042" : null } : null;
    return [c.key, { summary: c.summary, value: receiptOf(eventOf(c, i), reading, RECEIVED_AT, match) }];
  }),
);
