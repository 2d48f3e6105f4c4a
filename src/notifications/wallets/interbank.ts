// Interbank's app, which carries Plin (notes/notifications.md §3: full name in Title case, two decimals).
import { wording, type Wallet } from "./format";

export const interbank: Wallet = {
  id: "interbank",
  packages: ["pe.com.interbank.mobilebanking"],
  payments: [{ id: "interbank.plin_received", source: "plin", pattern: wording("{name} te ha plineado {amount}") }],
  examples: [
    { text: "Luis Alberto Albarran Jara te ha plineado S/ 1.00", reads: { amount: 100, payer_name: "Luis Alberto Albarran Jara", security_code: null } },
    { text: "Anat Marticorena te ha plineado S/ 100.00", reads: { amount: 10000, payer_name: "Anat Marticorena", security_code: null } },
    { text: "Se realizó un pago recurrente de S/.11.90 en DLC*helphbomaxcom con tu Tarjeta de Crédito.", reads: null },
  ],
};
