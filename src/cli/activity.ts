// serve's activity lines (issue 15): short lines in the merchant's language, for a person watching
// serve's terminal, about what matters in a shop: a payment and its outcome, a phone that went quiet
// or came back, a license that stopped or resumed the phones' payments, a payment matched later.
//
// Changes come from everywhere (phones through the writer thread, the console, CLI commands in other
// processes, the expiry sweep), so the one true source is the database: each tick reads what changed
// since the previous one. New events and matches by seq (their rowid: a range at the end of the
// table, whatever its size); phones and licenses by comparing each one's state with the previous
// tick's (a box has a few of each). Nothing is printed for what was there at start.
import type { Database } from "bun:sqlite";
import type { Clock } from "../clock";
import { isOnline } from "../device/model";
import { translator, type Lang, type MessageKey, type Translate } from "../i18n";
import { clockTime, dateAndTime, soles, startOfLocalDay, walletName } from "../i18n/format";
import { chooseOrder } from "../matching/engine";
import { candidateOrdersFor, matchingStatements } from "../matching/store";
import { perConnection, type Store } from "../store/db";
import type { Environment } from "../store/schema";
import { licenseSuspension } from "../tenants/service";
import { readChoice } from "./framework";

export const ACTIVITY_MODES = ["auto", "on", "off"] as const;
export type ActivityMode = (typeof ACTIVITY_MODES)[number];

/** serve's --activity (auto unless given); a usage error (exit 2) for anything else. */
export const activityMode = (opts: Record<string, unknown>): ActivityMode => readChoice(opts, "activity", ACTIVITY_MODES) ?? "auto";

/** auto: only when a person can read them (stdout is a terminal); on: always; off: never. */
export function activityWanted(mode: ActivityMode, stdoutIsTerminal: boolean): boolean {
  return mode === "on" || (mode === "auto" && stdoutIsTerminal);
}

/** At most this many payment lines (and as many late-match lines) per tick; the rest are counted. */
export const MAX_LINES_PER_TICK = 20;
export const ACTIVITY_INTERVAL_MS = 1_000;

/** Each statement reads one range at the end of a table, or a table of a few rows (query-plan test in test/cli-activity.test.ts). */
export const ACTIVITY_SQL = {
  lastEventSeq: `SELECT max(seq) AS seq FROM events`,
  lastMatchSeq: `SELECT max(seq) AS seq FROM matches`,
  eventsAfter: `SELECT seq, tenant_id AS tenantId, environment, amount, currency, payer_name AS payerName, security_code AS securityCode,
      source, occurred_at AS occurredAt, match_status AS matchStatus, order_id AS orderId
    FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2`,
  matchesAfter: `SELECT seq, tenant_id AS tenantId, environment, order_id AS orderId, event_seq AS eventSeq, amount, payer_name AS payerName,
      source, matched_at AS matchedAt, method
    FROM matches WHERE seq > ?1 ORDER BY seq LIMIT ?2`,
  // Only when a tick has more than it prints: how many more, and where the next tick starts.
  eventsRest: `SELECT count(*) AS n, max(seq) AS last FROM events WHERE seq > ?1`,
  // Late matches only (of events stored before this tick, ?2): those of new events are in their lines.
  matchesRest: `SELECT coalesce(sum(event_seq <= ?2), 0) AS n, max(seq) AS last FROM matches WHERE seq > ?1`,
  phones: `SELECT id, tenant_id AS tenantId, environment, label, last_heartbeat_at AS lastHeartbeatAt FROM devices WHERE status = 'active'`,
  shops: `SELECT id, name, license_status AS licenseStatus, license_expires_at AS licenseExpiresAt FROM tenants`,
} as const;

interface NewEvent {
  seq: number;
  tenantId: string;
  environment: Environment;
  amount: number;
  currency: string;
  payerName: string | null;
  securityCode: string | null;
  source: string;
  occurredAt: number;
  matchStatus: "matched" | "unmatched" | "ambiguous" | "duplicate";
  orderId: string | null;
}

interface NewMatch {
  seq: number;
  tenantId: string;
  environment: Environment;
  orderId: string;
  eventSeq: number;
  amount: number;
  payerName: string | null;
  source: string;
  matchedAt: number;
  method: "auto" | "manual";
}

interface Phone {
  id: string;
  tenantId: string;
  environment: Environment;
  label: string;
  lastHeartbeatAt: number | null;
}

interface Shop {
  id: string;
  name: string;
  licenseStatus: "active" | "suspended";
  licenseExpiresAt: number | null;
}

type Rest = { n: number; last: number | null };

const statements = perConnection((client: Database) => ({
  lastEventSeq: client.prepare<{ seq: number | null }, []>(ACTIVITY_SQL.lastEventSeq),
  lastMatchSeq: client.prepare<{ seq: number | null }, []>(ACTIVITY_SQL.lastMatchSeq),
  eventsAfter: client.prepare<NewEvent, [number, number]>(ACTIVITY_SQL.eventsAfter),
  matchesAfter: client.prepare<NewMatch, [number, number]>(ACTIVITY_SQL.matchesAfter),
  eventsRest: client.prepare<Rest, [number]>(ACTIVITY_SQL.eventsRest),
  matchesRest: client.prepare<Rest, [number, number]>(ACTIVITY_SQL.matchesRest),
  phones: client.prepare<Phone, []>(ACTIVITY_SQL.phones),
  shops: client.prepare<Shop, []>(ACTIVITY_SQL.shops),
  // One snapshot per tick (WAL: a read never waits on the writer), so an event and its match are
  // seen together or not at all.
  snapshot: client.transaction((read: () => unknown) => read()) as <T>(read: () => T) => T,
}));

/** A phone as the previous tick saw it; `new` = never online yet (paired, no heartbeat so far). */
type PhoneState = "online" | "offline" | "new";

export interface ActivityOptions {
  store: Store;
  clock: Clock;
  lang: Lang;
  /** One line, without its newline. */
  write(line: string): void;
  maxLines?: number;
}

export interface ActivityReporter {
  /** Reads what changed since the previous tick and writes its lines; returns them too. */
  tick(): string[];
}

/** Takes the database as it is now as the starting point: nothing that is already there is printed. */
export function activityReporter(o: ActivityOptions): ActivityReporter {
  const s = statements(o.store);
  const t = translator(o.lang);
  const max = o.maxLines ?? MAX_LINES_PER_TICK;
  const start = s.snapshot(() => ({
    event: s.lastEventSeq.get()?.seq ?? 0,
    match: s.lastMatchSeq.get()?.seq ?? 0,
    phones: s.phones.all(),
    shops: s.shops.all(),
  }));
  const now0 = o.clock.now();
  let lastEvent = start.event;
  let lastMatch = start.match;
  const stateAtStart = (p: Phone): PhoneState => (isOnline(p.lastHeartbeatAt, now0) ? "online" : p.lastHeartbeatAt === null ? "new" : "offline");
  const phones = new Map<string, PhoneState>(start.phones.map((p) => [p.id, stateAtStart(p)]));
  const licenses = new Map(start.shops.map((sh) => [sh.id, licenseSuspension(sh.licenseStatus, sh.licenseExpiresAt, now0)]));

  return {
    tick() {
      const now = o.clock.now();
      const read = s.snapshot(() => {
        const events = s.eventsAfter.all(lastEvent, max + 1);
        const matches = s.matchesAfter.all(lastMatch, max + 1);
        return {
          events,
          matches,
          eventsRest: events.length > max ? s.eventsRest.get(events[max - 1]!.seq) : null,
          matchesRest: matches.length > max ? s.matchesRest.get(matches[max - 1]!.seq, lastEvent) : null,
          phones: s.phones.all(),
          shops: s.shops.all(),
        };
      });
      const shopNames = new Map(read.shops.map((sh) => [sh.id, sh.name]));
      // On a box with one shop (nearly all) lines need not say which.
      const inShop = (tenantId: string, text: string) => (read.shops.length > 1 ? t("cli.activity.in_shop", { shop: shopNames.get(tenantId) ?? tenantId, text }) : text);
      const line = (at: number, environment: Environment, tenantId: string, text: string) =>
        `${timeOf(at, now, o.lang)}  ${environment === "test" ? `${t("cli.activity.test_mark")} ` : ""}${inShop(tenantId, text)}`;
      const lines: string[] = [];

      // Payments stored since the previous tick, with the outcome they were stored with.
      const eventsBefore = lastEvent;
      for (const e of read.events.slice(0, max)) {
        lines.push(line(e.occurredAt, e.environment, e.tenantId, t("cli.activity.payment", { ...paymentFacts(e, t), outcome: outcomeOf(o.store, e, now, t) })));
      }
      if (read.eventsRest) lines.push(`…  ${t("cli.activity.more_payments", { count: read.eventsRest.n })}`);
      lastEvent = read.eventsRest?.last ?? read.events[read.events.length - 1]?.seq ?? lastEvent;

      // Matches of payments that were already there (stored waiting, shown by an earlier tick or
      // before start): an order that arrived later, or a person's decision. A payment stored in this
      // tick was shown above already matched.
      for (const m of read.matches.slice(0, max)) {
        if (m.eventSeq > eventsBefore) continue;
        const key: MessageKey = m.method === "manual" ? "cli.activity.matched_by_hand" : "cli.activity.matched_later";
        lines.push(line(m.matchedAt, m.environment, m.tenantId, t(key, { ...paymentFacts(m, t), order: m.orderId })));
      }
      if (read.matchesRest && read.matchesRest.n > 0) lines.push(`…  ${t("cli.activity.more_matches", { count: read.matchesRest.n })}`);
      lastMatch = read.matchesRest?.last ?? read.matches[read.matches.length - 1]?.seq ?? lastMatch;

      // Phones whose online state flipped since the previous tick (contract §5's rule).
      const active = new Set<string>();
      for (const p of read.phones) {
        active.add(p.id);
        const online = isOnline(p.lastHeartbeatAt, now);
        const before = phones.get(p.id) ?? "new";
        if (online && before !== "online") {
          lines.push(line(now, p.environment, p.tenantId, t(before === "new" ? "cli.activity.phone_new" : "cli.activity.phone_back", { label: p.label })));
        } else if (!online && before === "online") {
          const since = p.lastHeartbeatAt === null ? "?" : timeOf(p.lastHeartbeatAt, now, o.lang);
          lines.push(line(now, p.environment, p.tenantId, t("cli.activity.phone_quiet", { label: p.label, since })));
        }
        phones.set(p.id, online ? "online" : before === "new" ? "new" : "offline");
      }
      for (const id of phones.keys()) if (!active.has(id)) phones.delete(id); // revoked

      // Licenses (contract §3): suspended by hand, or expired by the clock.
      for (const sh of read.shops) {
        const reason = licenseSuspension(sh.licenseStatus, sh.licenseExpiresAt, now);
        if (licenses.has(sh.id) && licenses.get(sh.id) !== reason) {
          const key: MessageKey = reason === "suspended" ? "cli.activity.license_suspended" : reason === "expired" ? "cli.activity.license_expired" : "cli.activity.license_active";
          lines.push(`${timeOf(now, now, o.lang)}  ${t(key, { shop: sh.name })}`);
        }
        licenses.set(sh.id, reason);
      }

      for (const l of lines) o.write(l);
      return lines;
    },
  };
}

/** Amount, payer and wallet of a payment line (the payer is left out when the wallet gave none). */
function paymentFacts(p: { amount: number; payerName: string | null; source: string }, t: Translate) {
  return { amount: soles(p.amount), from: p.payerName ? t("cli.activity.from", { payer: p.payerName }) : "", wallet: walletName(p.source) };
}

function outcomeOf(store: Store, e: NewEvent, now: number, t: Translate): string {
  switch (e.matchStatus) {
    case "matched":
      return t("cli.activity.to_order", { order: e.orderId ?? "?" });
    case "unmatched":
      return t("cli.activity.no_order");
    case "duplicate":
      return t("cli.activity.duplicate");
    case "ambiguous": {
      // How many orders fit, as the engine sees them now (one indexed read; the stored outcome says
      // only that there were several).
      const scope = { tenantId: e.tenantId, environment: e.environment };
      const decision = chooseOrder(e, candidateOrdersFor(matchingStatements(store), scope, e, now), now);
      return decision.outcome === "ambiguous" ? t("cli.activity.ambiguous", { count: decision.candidates.length }) : t("cli.activity.ambiguous_some");
    }
  }
}

/** The hour today; the day and hour before (a phone may send a payment it kept while offline). */
function timeOf(ms: number, now: number, lang: Lang): string {
  return ms >= startOfLocalDay(now) ? clockTime(ms, lang) : dateAndTime(ms, lang);
}

export interface StartActivityOptions extends ActivityOptions {
  mode: ActivityMode;
  /** Whether stdout is a terminal (process.stdout.isTTY unless a test says). */
  terminal?: boolean;
  intervalMs?: number;
  /** A failed tick is reported here (once per different message), and the next tick tries again. */
  onError?(e: Error): void;
}

/** serve: a reporter ticking every second, when wanted. */
export function startActivity(o: StartActivityOptions): { stop(): void } {
  if (!activityWanted(o.mode, o.terminal ?? process.stdout.isTTY === true)) return { stop() {} };
  const reporter = activityReporter(o);
  let lastError = "";
  const timer = setInterval(() => {
    try {
      reporter.tick();
      lastError = "";
    } catch (e) {
      if ((e as Error).message !== lastError) o.onError?.(e as Error);
      lastError = (e as Error).message;
    }
  }, o.intervalMs ?? ACTIVITY_INTERVAL_MS);
  return { stop: () => clearInterval(timer) };
}
