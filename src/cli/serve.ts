// `cuadra serve`: both surfaces over HTTPS (self-signed by default) or plain HTTP, with a graceful
// stop on SIGTERM/SIGINT (contract §1).
import { resolve } from "node:path";
import { count } from "drizzle-orm";
import { createApp, type AppConfig } from "../app";
import { ApiError, problemResponse } from "../http/errors";
import { newId } from "../ids";
import { sweepExpiredOrders } from "../matching/service";
import { offlineDue } from "../device/service";
import { startDelivery, type WebhookDelivery } from "../webhooks/delivery";
import { reparseThroughWriter } from "../notifications/reparse";
import { recentEventsMover } from "../payments/recent-events";
import { lockDataDir } from "../store/data-dir";
import { openStore, readerOnly, type Store } from "../store/db";
import { startWriter, type Writer } from "../store/writer";
import { jsonLogger } from "../log";
import { createRateLimiters } from "../http/rate-limit";
import { createSecretBox, loadMasterKey } from "../store/secret-box";
import { tenants } from "../store/schema";
import { VERSION } from "../version";
import { CliError, readChoice, readInt, UsageError, type Command, type CommandContext } from "./framework";
import { initHuman, initialise } from "./init";
import { checkDatabase } from "./integrity";
import { activityMode, startActivity } from "./activity";
import { announce, instanceName, type Announcement } from "../pairing/announce";
import { baseUrl, lanAddresses } from "../pairing/base-url";
import { recordBoxAddress, DEFAULT_PORT, type BoxAddress } from "../pairing/box-address";
import { addressesNotInCertificate, ensureSelfSignedCert, loadTls } from "../pairing/certificate";
import { fingerprintForPeople } from "../pairing/uri";

const SHUTDOWN_GRACE_MS = 4000;
// Cheap when nothing is due (an indexed range read), so a payment that an expiring order held
// ambiguous is re-evaluated within about a second of the expiry.
const SWEEP_INTERVAL_MS = 1_000;

export const serveCommand: Command = {
  path: ["serve"],
  summary: "cli.cmd.serve",
  createsDataDir: true,
  options: {
    host: { type: "string", value: "H", description: "cli.opt.host" },
    port: { type: "string", value: "P", description: "cli.opt.port" },
    tls: { type: "string", value: "auto|off", description: "cli.opt.tls" },
    "tls-cert": { type: "string", value: "F", description: "cli.opt.tls_cert" },
    "tls-key": { type: "string", value: "F", description: "cli.opt.tls_key" },
    "public-url": { type: "string", value: "URL", description: "cli.opt.public_url" },
    "rate-limit-scale": { type: "string", value: "X", description: "cli.opt.rate_limit_scale" },
    name: { type: "string", value: "NAME", description: "cli.opt.serve_name" },
    "no-mdns": { type: "boolean", description: "cli.opt.no_mdns" },
    "no-init": { type: "boolean", description: "cli.opt.no_init" },
    activity: { type: "string", value: "auto|on|off", description: "cli.activity.option" },
  },
  async run(ctx, o) {
    // Listen for SIGTERM/SIGINT before anything slow (first-run init, certificate): a stop asked for
    // during start-up must still end with exit 0, not with the signal's default action (143/130).
    const stop = listenForStop();
    const host = (o.host as string | undefined) ?? "0.0.0.0";
    const port = readInt(o, "port", 0, 65535) ?? DEFAULT_PORT;
    const tlsMode = readChoice(o, "tls", ["auto", "off"] as const) ?? "auto";
    const certFile = o["tls-cert"] as string | undefined;
    const keyFile = o["tls-key"] as string | undefined;
    if (Boolean(certFile) !== Boolean(keyFile)) throw new UsageError("cli.usage.tls_pair");
    if (certFile && tlsMode === "off") throw new UsageError("cli.usage.tls_off_cert");
    const scaleText = (o["rate-limit-scale"] as string | undefined) ?? "1";
    const scale = Number(scaleText);
    if (!Number.isFinite(scale) || scale < 0) throw new UsageError("cli.usage.scale", { value: scaleText });
    const publicUrl = o["public-url"] as string | undefined;
    if (publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(publicUrl)) throw new UsageError("cli.usage.public_url", { value: publicUrl });
    if (typeof o.name === "string" && o.name.trim() === "") throw new UsageError("cli.usage.not_empty", { option: "--name" });
    activityMode(o); // --activity is read again once serving; checked here, before anything starts

    // Before anything is created: a first start on a port in use must leave no shop, keys or code behind.
    await checkCanListen(host, port);
    // contract §14: one writer per data dir. A second server is refused, as a port in use is.
    const held = lockDataDir(ctx.dataDir);
    if (!held) throw new CliError("cli.serve.held", { path: resolve(ctx.dataDir) });
    try {
      return await serveHeld(ctx, o, stop, { host, port, tlsMode, certFile, keyFile, scale, publicUrl });
    } finally {
      held.release();
    }
  },
};

interface ServeOptions {
  host: string;
  port: number;
  tlsMode: string;
  certFile: string | undefined;
  keyFile: string | undefined;
  scale: number;
  publicUrl: string | undefined;
}

/** serve, once the data dir is held by this process. */
async function serveHeld(
  ctx: CommandContext,
  o: Record<string, unknown>,
  stop: ReturnType<typeof listenForStop>,
  { host, port, tlsMode, certFile, keyFile, scale, publicUrl }: ServeOptions,
): Promise<undefined> {
  const store = ctx.store();
  checkDatabase(store); // issue 15: a damaged database is refused, before anything starts on it
  const tls = certFile && keyFile ? loadTls(resolve(certFile), resolve(keyFile)) : tlsMode === "auto" ? await ensureSelfSignedCert(ctx.dataDir) : null;
  const logger = jsonLogger();
  const secretBox = await createSecretBox(loadMasterKey(ctx.dataDir));
  // contract §14: from here on this process writes only through the writer thread.
  const writer = await startWriter(ctx.dataDir, {
    onFailure: (e, what) =>
      logger.event("error", what === "stopped" ? "writer thread stopped; starting a new one" : "writer thread could not start; retrying", {
        error: e.message,
      }),
  });
  const config: AppConfig = { publicUrl: publicUrl?.replace(/\/+$/, ""), tlsFingerprint: tls?.fingerprint ?? null };
  const app = createApp({
    writer,
    store: readerOnly(store),
    clock: ctx.clock,
    logger,
    limiters: createRateLimiters(ctx.clock, scale),
    secretBox,
    config,
    recognise: ctx.recognise,
  });

  if (stop.requested()) {
    await writer.close();
    logger.event("info", "stopping");
    logger.event("info", "stopped");
    return undefined; // runCli closes the store
  }

  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: host,
      port,
      // Our own per-route limits answer 413 first, from Content-Length or while reading (contract
      // §2.6); Bun's limit must stay above them or it answers a bare 413 of its own.
      maxRequestBodySize: 1024 * 1024 * 1024,
      ...(tls ? { tls: { cert: tls.cert, key: tls.key } } : {}),
      fetch: (req, srv) => app.handle(req, srv.requestIP(req)?.address ?? "unknown"),
      // Only reached if the pipeline itself throws: still the contract's bare 5xx problem body.
      error: () => {
        const requestId = newId("req");
        const res = problemResponse(new ApiError("internal_error"), requestId);
        res.headers.set("x-request-id", requestId);
        return res;
      },
    });
  } catch (e) {
    await writer.close();
    const msg = (e as Error).message;
    if (/in use|EADDRINUSE/i.test(msg)) throw new CliError("cli.serve.port_in_use", { port, host });
    throw e;
  }

  const scheme = tls ? "https" : "http";
  const listeningPort = server.port ?? port;
  const listensEverywhere = host === "0.0.0.0" || host === "::";
  const address: BoxAddress = {
    // contract §17; a server bound to one address can only be reached there.
    url: listensEverywhere || publicUrl ? baseUrl({ publicUrl, scheme, port: listeningPort, addresses: lanAddresses() }) : `${scheme}://${urlHost(host)}:${listeningPort}`,
    fp: tls?.fingerprint ?? null,
  };
  recordBoxAddress(ctx.dataDir, address);
  config.boxUrl = address.url; // the console's pairing QR codes and sign-in links (contract §17, §18)

  // The first shop is made only once the server listens, so a port in use leaves nothing half made.
  const hasTenant = store.db.select({ n: count() }).from(tenants).get()!.n > 0;
  const name = (o.name as string | undefined)?.trim();
  // An empty data dir gets its first shop when asked (--name) or when a person is watching the
  // terminal; scripts, test suites and services never get a shop they did not ask for.
  const interactive = process.stdout.isTTY === true;
  if (!hasTenant && !o["no-init"] && !ctx.json && (name !== undefined || interactive)) {
    // This connection reads only now (contract §14): the shop is made on one of its own, as `init` would.
    const own = openStore(ctx.dataDir);
    try {
      ctx.out(initHuman(await initialise({ ...ctx, store: () => own }, name ?? ctx.t("cli.serve.default_name"), undefined, address), ctx));
    } finally {
      own.close();
    }
  } else if (!hasTenant && !o["no-init"]) {
    ctx.err(ctx.t("cli.serve.no_shop"));
  } else if (hasTenant && name !== undefined && name !== firstShopName(store)) {
    // A re-run of the first command (or an install script) must not look as if it renamed the shop.
    ctx.err(ctx.t("cli.serve.name_kept", { name: firstShopName(store) ?? "", asked: name }));
  }

  const shownHosts = listensEverywhere ? ["localhost", ...lanAddresses()] : [host];
  const urls = shownHosts.map((h) => `${scheme}://${urlHost(h)}:${listeningPort}`);
  const shopName = firstShopName(store);
  const announcing = o["no-mdns"] ? null : `"${instanceName(shopName)}" (_cuadra._tcp)`;
  // Warned only when the certificate names none of them: one address it names is enough for browsers.
  const ownAddresses = listensEverywhere ? lanAddresses() : [host];
  const unnamed = tls ? addressesNotInCertificate(tls.cert, ownAddresses) : [];
  const certificateWarning = unnamed.length > 0 && unnamed.length === ownAddresses.length ? ctx.t("cli.serve.cert_names_none", { addresses: unnamed.join(", ") }) : null;
  const { t } = ctx;
  ctx.out(
    [
      t("cli.serve.running", { version: VERSION }),
      t("cli.serve.urls", { urls: urls.join("  ") }),
      t("cli.serve.console", { url: `${address.url}/console/` }),
      t("cli.serve.docs", { url: `${urls[0]}/docs` }),
      ...(tls ? [t("cli.serve.fingerprint", { fp: fingerprintForPeople(tls.fingerprint) })] : []),
      ...(tls && !certFile ? [t("cli.serve.self_signed")] : []),
      t("cli.serve.pairing", { url: address.url, announced: announcing ? t("cli.serve.announced", { name: announcing }) : "" }),
      t("cli.serve.data", { path: resolve(ctx.dataDir) }),
      ...(certificateWarning ? [certificateWarning] : []),
      t("cli.serve.stop"),
    ].join("\n"),
  );
  logger.event("info", "listening", {
    url: `${scheme}://${host}:${listeningPort}`,
    pairing_url: address.url,
    version: VERSION,
    ...(tls ? { tls_fingerprint: tls.fingerprint } : {}),
  });
  if (certificateWarning) logger.event("warn", "the TLS certificate names none of this box's addresses", { addresses: unnamed });
  // Lines for a person watching this terminal (issue 15), read from the database every second.
  const activity = startActivity({
    store,
    clock: ctx.clock,
    lang: ctx.lang,
    write: ctx.out,
    mode: activityMode(o),
    onError: (e) => logger.event("error", "activity lines failed", { error: e.message }),
  });

  // contract §17: failure to announce (no multicast interface) is logged once and never stops the server.
  const announcement: Announcement | null = o["no-mdns"]
    ? null
    : announce({
        shopName,
        port: listeningPort,
        fp: address.fp,
        onFailure: (e) => logger.event("warn", "cannot announce on the local network (mDNS); phones that lose the box must be paired again", { error: e.message }),
      });

  // contract §10: expiry is correct without this job (candidates are filtered by expires_at at
  // read time); the sweep records expiries and re-evaluates the payments expired orders held.
  const mover = recentEventsMover((now) => writer.run("moveDueRecentEvents", { now }));
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return; // a tick that outlasts the interval is not run twice at once
    sweeping = true;
    try {
      await sweepOnce();
    } finally {
      sweeping = false;
    }
  };
  const sweepOnce = async () => {
    try {
      const expired = await sweepExpiredOrders(store.db, writer, ctx.clock.now());
      if (expired > 0) logger.event("info", "orders expired", { count: expired });
    } catch (e) {
      logger.event("error", "expiry sweep failed", { error: (e as Error).message });
    }
    // contract §15: `device.offline` within a tick of a phone no longer reading as online.
    try {
      if (offlineDue(store.db, ctx.clock.now())) await writer.run("reportOfflineDevices", { now: ctx.clock.now() });
    } catch (e) {
      logger.event("error", "liveness watch failed", { error: (e as Error).message });
    }
    // Once the box is quiet, recent events are moved into the big indexes, a batch per tick
    // (payments/recent-events.ts).
    const step = await mover.step(ctx.clock.now());
    if ("failed" in step) {
      logger.event("error", "moving recent events failed", {
        error: step.failed.message,
        failures: step.failures,
        retry_in_s: Math.round((step.retryAt - ctx.clock.now()) / 1000),
      });
    }
  };
  void sweep();
  const sweeper = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
  // contract §16: notifications no earlier version could read are read again with this one's formats.
  void reparseThroughWriter({ store, writer, clock: ctx.clock, recognise: ctx.recognise }).then(
    (r) => r.read > 0 && logger.event("info", "unrecognised notifications read again", { ...r }),
    (e) => logger.event("error", "reading notifications again failed", { error: (e as Error).message }),
  );
  // contract §15: queued webhook messages, those left by a crash or a stop included.
  const delivery = startDelivery({ reader: store, writer, clock: ctx.clock, logger, secretBox });

  await stop.wait;
  clearInterval(sweeper);
  activity.stop();
  await stopGracefully(server, writer, delivery, announcement, ctx, logger.event);
  return undefined;
}

/**
 * Fails, with what to do, when nothing can listen on host:port (another program has it, or the
 * address is not this computer's). Checked with a listener that is closed at once.
 */
async function checkCanListen(host: string, port: number): Promise<void> {
  if (port === 0) return;
  try {
    const probe = Bun.listen({ hostname: host, port, socket: { data() {} } });
    probe.stop(true);
  } catch (e) {
    const err = e as Error & { code?: string };
    if (err.code === "EADDRINUSE" || /in use/i.test(err.message)) throw new CliError("cli.serve.port_in_use", { port, host });
    throw new CliError("cli.serve.host_unavailable", { host, port, reason: err.code ?? err.message });
  }
}

const urlHost = (h: string) => (h.includes(":") ? `[${h}]` : h);

/** The shop the announcement is named after: the first one made (a box almost always has one). */
function firstShopName(store: Store): string | null {
  return store.db.select({ name: tenants.name }).from(tenants).orderBy(tenants.createdAt, tenants.id).limit(1).get()?.name ?? null;
}

/** Records the first SIGTERM/SIGINT. The handlers stay installed, so a second signal during the
 * graceful stop is ignored instead of killing the process (the stop is bounded anyway). */
function listenForStop(): { requested(): boolean; wait: Promise<void> } {
  let signalled = false;
  let wake = () => {};
  const wait = new Promise<void>((res) => (wake = res));
  const onSignal = () => {
    signalled = true;
    wake();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return { requested: () => signalled, wait };
}

async function stopGracefully(
  server: ReturnType<typeof Bun.serve>,
  writer: Writer,
  delivery: WebhookDelivery,
  announcement: Announcement | null,
  ctx: CommandContext,
  log: (l: "info", m: string) => void,
): Promise<void> {
  log("info", "stopping");
  const force = setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS);
  // Goodbye first (contract §17: the announcement is withdrawn), so phones stop trying this address.
  await announcement?.stop();
  await server.stop(false); // let in-flight requests finish
  // Attempts still waiting on a receiver after this are sent again after the restart (at least once).
  await Promise.race([delivery.stop(), Bun.sleep(SHUTDOWN_GRACE_MS / 2)]);
  await writer.close();
  clearTimeout(force);
  ctx.store().close();
  log("info", "stopped");
}
