// The wallets this box reads (contract §16). To add or fix a format: change its wallet's file, put
// the text that showed the change among its examples and in test/fixtures/notifications.json with
// where it came from, and run `bun test notifications`. Unrecognised notifications already stored are
// read again at the next start (or by `cuadra notifications reparse`).
import { bbva } from "./bbva";
import { bcp, scotiabank } from "./banks";
import type { Wallet } from "./format";
import { interbank } from "./interbank";
import { yape } from "./yape";

export const WALLETS: readonly Wallet[] = [yape, interbank, bbva, bcp, scotiabank];
