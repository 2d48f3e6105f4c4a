// BBVA Perú's app: Plin, and the merchant's "Cobro con QR" (notes/notifications.md §3, §3.1).
import { wording, type Wallet } from "./format";

export const bbva: Wallet = {
  id: "bbva",
  packages: ["com.bbva.nxt_peru"],
  titles: ["Cobro con QR", "¡Recibiste un Plin! 💸"],
  payments: [
    // Name in capitals, no space after `S/`, a space before the final period: "… te plineó S/1 ."
    { id: "bbva.plin_received", source: "plin", pattern: wording("{name} te plineó {amount}") },
    // Title "Cobro con QR"; one decimal even for whole amounts ("S/ 1.0").
    { id: "bbva.qr_payment_received", source: "bbva", pattern: wording("{name} te hizo un pago de {amount}") },
  ],
  examples: [
    { title: "¡Recibiste un Plin! 💸", text: "ADRIAN ISSAC MAMANI te plineó S/1 .", reads: { amount: 100, payer_name: "ADRIAN ISSAC MAMANI", security_code: null } },
    { title: "Cobro con QR", text: "SANDRO RISSO MORON te hizo un pago de S/ 23.9", reads: { amount: 2390, payer_name: "SANDRO RISSO MORON", security_code: null } },
    { title: "¡Enviaste un Plin!", text: "Plineaste S/1 a Adrian I Mamani Q .", reads: null },
  ],
};
