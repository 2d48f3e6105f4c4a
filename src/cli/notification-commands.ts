// `cuadra notifications reparse` (contract §16): unrecognised notifications read again with the
// formats of this version, as serve does at every start, on the command's own connection.
import { reparseNotifications, type ReparseSummary } from "../notifications/reparse";
import type { Db } from "../store/db";
import { writes } from "../writes";
import type { Command } from "./framework";

export const notificationCommands: Command[] = [
  {
    path: ["notifications", "reparse"],
    summary: "cli.cmd.reparse",
    run: async (ctx): Promise<ReparseSummary> => {
      const db = ctx.store().db;
      // IMMEDIATE: the batch reads before it writes, and serve's writer may commit in between.
      return reparseNotifications(db, ctx.recognise, ctx.clock.now(), (readings) =>
        db.transaction((tx) => writes.rereadNotifications(tx as unknown as Db, { readings, now: ctx.clock.now() }), { behavior: "immediate" }),
      );
    },
    human: (r: ReparseSummary, { t }) =>
      [
        t("cli.reparse.read", { n: r.read }),
        t("cli.reparse.payments", { n: r.payments }),
        t("cli.reparse.not_payments", { n: r.not_a_payment }),
        ...(r.too_old > 0 ? [t("cli.reparse.too_old", { n: r.too_old })] : []),
        ...(r.failed > 0 ? [t("cli.reparse.failed", { n: r.failed })] : []),
        t("cli.reparse.still", { n: r.read - r.payments - r.not_a_payment }),
      ].join("\n"),
  },
];
