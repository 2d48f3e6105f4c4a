// Yape (BCP's wallet). Formats from captures in notes/notifications.md §2; both coexist in 2026.
import { wording, type Wallet } from "./format";

export const yape: Wallet = {
  id: "yape",
  packages: ["com.bcp.innovacxion.yapeapp"],
  titles: ["Confirmación de Pago"],
  payments: [
    {
      // Yape to Yape: first name, three letters of the surname and `*`; the security code since
      // 2025-04 ("Yanina Man* te envió un pago por S/ 56.7. El cód. de seguridad es: 666").
      id: "yape.payment_received",
      source: "yape",
      pattern: wording("{name} te envió un pago por {amount}[.][ El (cód.|código) de seguridad es(: |:| ){code}]"),
    },
    {
      // "Yape!" and the name as the sending bank or company gives it, no code
      // ("Yape! QUANTIO SOLUTIONS E.I.R.L. te envió un pago por S/ 1.00").
      id: "yape.payment_received_full_name",
      source: "yape",
      pattern: wording("[¡]Yape! {name} te envió un pago por {amount}"),
    },
  ],
  notPayments: [
    // An advert Yape sends ("¿Ya te depositaron? 💰💰 👀👀 Ingresa al app y revisa tu dinero
    // disponible...", yape-notifier NOTIFICATION_FILTERING.md): it speaks of deposits, so the
    // general rules would keep it.
    { id: "promotion", pattern: /^¿Ya te depositaron\?/iu },
  ],
  examples: [
    { text: "Yanina Man* te envió un pago por S/ 56.7. El cód. de seguridad es: 666", reads: { amount: 5670, payer_name: "Yanina Man*", security_code: "666" } },
    { text: "Jose Orb* te envió un pago por S/ 9. El cód. de seguridad es: 021", reads: { amount: 900, payer_name: "Jose Orb*", security_code: "021" } },
    { text: "Luis Alb* te envió un pago por S/ 1. El cod. de seguridad es: 984", reads: { amount: 100, payer_name: "Luis Alb*", security_code: "984" } },
    { text: "Yape! JEFFERSON GIOVANNI LEON CARLOS te envió un pago por S/ 20", reads: { amount: 2000, payer_name: "JEFFERSON GIOVANNI LEON CARLOS", security_code: null } },
    { text: "Yape! QUANTIO SOLUTIONS E.I.R.L. te envió un pago por S/ 1.00", reads: { amount: 100, payer_name: "QUANTIO SOLUTIONS E.I.R.L.", security_code: null } },
    { title: "¡Yapeaste!", text: "Enviaste S/ 15.00 a Bodega Don Pepe", reads: null },
  ],
};
