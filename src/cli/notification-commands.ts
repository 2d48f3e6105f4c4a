// `cuadra notifications reparse` (contract §16): unrecognised notifications read again with the
// formats of this version, as serve does at every start, on the command's own connection.
import { reparseNotifications, type ReparseSummary } from "../notifications/reparse";
import type { Db } from "../store/db";
import { writes } from "../writes";
import type { Command } from "./framework";

export const notificationCommands: Command[] = [
  {
    path: ["notifications", "reparse"],
    summary: "Read unrecognised wallet notifications again; payments found (at most 30 days old) are stored and matched",
    run: async (ctx): Promise<ReparseSummary> => {
      const db = ctx.store().db;
      return reparseNotifications(db, ctx.recognise, (readings) =>
        db.transaction((tx) => writes.rereadNotifications(tx as unknown as Db, { readings, now: ctx.clock.now() })),
      );
    },
    human: (r: ReparseSummary) =>
      [
        `read again: ${r.read}`,
        `became payments: ${r.payments}`,
        `not payments (text dropped): ${r.not_a_payment}`,
        ...(r.too_old > 0 ? [`payments older than 30 days, left unrecognised: ${r.too_old}`] : []),
        `still unrecognised: ${r.read - r.payments - r.not_a_payment}`,
      ].join("\n"),
  },
];
