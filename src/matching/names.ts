// Name compatibility (contract §10, rule 3). Wallet notifications show the payer's name as typed in
// the payer's bank, often cut short with `*` ("Yanina Man*"). The shop knows the customer's full
// name. We compare them without case or accents, word by word and in order: each visible word of
// the payer name must be a prefix of the corresponding word of the customer name.

/** Lower case, accents removed (NFD, combining marks dropped), so "MÁNRIQUE" and "manrique" agree. */
export function foldName(text: string): string {
  return text.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase();
}

/** The words of a customer name: letters and digits; punctuation and spaces separate words. */
export function nameWords(text: string): string[] {
  return foldName(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/**
 * The visible words of a payer name. A word cut with `*` keeps only what precedes the `*`
 * (`Man*` → `man`); since every word is compared as a prefix, a cut word and a whole word are read
 * the same way. A lone `*` stands for a word that was cut to nothing: it fits any word.
 */
export function payerWords(text: string): string[] {
  const out: string[] = [];
  for (const token of foldName(text).split(/[^\p{L}\p{N}*]+/u)) {
    if (token.length === 0) continue;
    const star = token.indexOf("*");
    out.push(star === -1 ? token : token.slice(0, star));
  }
  return out;
}

/**
 * contract §10 rule 3: `payerName` fits `customerName` when each visible word of the payer name is
 * a prefix of the customer word in the same position. A missing or empty name on either side fits
 * nothing: no name is no evidence.
 */
export function namesCompatible(payerName: string | null | undefined, customerName: string | null | undefined): boolean {
  if (!payerName || !customerName) return false;
  const payer = payerWords(payerName);
  const customer = nameWords(customerName);
  if (payer.length === 0 || payer.every((w) => w.length === 0)) return false;
  if (payer.length > customer.length) return false;
  return payer.every((word, i) => customer[i]!.startsWith(word));
}
