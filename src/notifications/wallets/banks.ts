// Banks whose own incoming-payment notifications no public capture shows yet (notes/notifications.md
// §4). Their packages are known, so their look-alikes are recognised as such and everything else is
// kept as unrecognised, to be read again once a format is added here, with its example. Do not guess
// a wording: a wrong one reads payments that are not.
import type { Wallet } from "./format";

export const bcp: Wallet = {
  id: "bcp",
  packages: ["com.bcp.bank.bcp"],
  payments: [],
  examples: [{ text: "Consumo de S/24.50 en Starbucks el 01/09.", reads: null }],
};

export const scotiabank: Wallet = {
  id: "scotiabank",
  packages: ["pe.com.scotiabank.blpm.android.client"],
  payments: [],
  examples: [{ text: "Operación en curso. Hemos generado y autocompletado la clave", reads: null }],
};
