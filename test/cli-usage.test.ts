// Every usage error of the command line (exit 2), with its exact text in English and in Spanish
// (issue 15: "usage errors in our own words", "document and test the message of every usage
// error"). This table is that documentation: a new usage error needs a row here (the last test
// checks that every `cli.usage.*` text of the catalogue has one).
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "bun:test";
import { ManualClock } from "../src/clock";
import { commands } from "../src/cli/commands";
import { runCli } from "../src/cli/framework";
import { es } from "../src/i18n/es";

const dir = mkdtempSync(join(tmpdir(), "cuadra-usage-"));
const missing = join(dir, "not-here");
const clock = new ManualClock(Date.UTC(2026, 10, 22, 13, 30));

async function run(argv: string[], LANG: string) {
  const err: string[] = [];
  const out: string[] = [];
  const code = await runCli(
    commands,
    argv.map((a) => a.replace("$DIR", dir).replace("$MISSING", missing)),
    { env: { LANG }, clock, out: (t) => out.push(t), err: (t) => err.push(t) },
  );
  return { code, out: out.join(""), err: err.map((l) => l.replace(/ten_[A-Za-z0-9]{20}/g, "ten_ID")) };
}

beforeAll(async () => {
  // Three shops, two of them with one name, for "which shop?" (a minute apart, so they list in this order).
  for (const name of ["Bodega Rosa", "Tienda Sur", "Tienda Sur"]) {
    expect((await run(["tenant", "create", "--name", name, "--data-dir", dir], "C")).code).toBe(0);
    clock.advance(60_000);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Row = { key: string; argv: string[]; en: string; es: string };

const ROWS: Row[] = [
  { key: "no_command", argv: [], en: "no command given; run 'cuadra --help' for the list of commands", es: "falta el comando; escribe 'cuadra --help' para ver los comandos" },
  { key: "unknown_command", argv: ["frobnicate"], en: "unknown command 'frobnicate'; run 'cuadra --help' for the list of commands", es: "no existe el comando 'frobnicate'; escribe 'cuadra --help' para ver los comandos" },
  { key: "unknown_command", argv: ["-x"], en: "unknown command '-x'; run 'cuadra --help' for the list of commands", es: "no existe el comando '-x'; escribe 'cuadra --help' para ver los comandos" },
  { key: "unknown_command_guess", argv: ["devices", "list"], en: "unknown command 'devices list'; did you mean 'cuadra device list'?", es: "no existe el comando 'devices list'; ¿quisiste decir 'cuadra device list'?" },
  { key: "unknown_command_guess", argv: ["key", "creat", "--env", "live"], en: "unknown command 'key creat'; did you mean 'cuadra key create'?", es: "no existe el comando 'key creat'; ¿quisiste decir 'cuadra key create'?" },
  { key: "unknown_command_guess", argv: ["serv"], en: "unknown command 'serv'; did you mean 'cuadra serve'?", es: "no existe el comando 'serv'; ¿quisiste decir 'cuadra serve'?" },
  { key: "unknown_command_guess", argv: ["tenants"], en: "unknown command 'tenants'; did you mean 'cuadra tenant'?", es: "no existe el comando 'tenants'; ¿quisiste decir 'cuadra tenant'?" },
  { key: "unknown_command_guess", argv: ["codes", "create"], en: "unknown command 'codes create'; did you mean 'cuadra code create'?", es: "no existe el comando 'codes create'; ¿quisiste decir 'cuadra code create'?" },
  { key: "unknown_command_group", argv: ["key"], en: "unknown command 'key'; this group has: key create, key list, key revoke", es: "no existe el comando 'key'; este grupo tiene: key create, key list, key revoke" },
  { key: "unknown_option", argv: ["tenant", "list", "--colour"], en: "unknown option '--colour'; see 'cuadra tenant list --help'", es: "no existe la opción '--colour'; mira 'cuadra tenant list --help'" },
  { key: "unknown_option_guess", argv: ["code", "create", "--ttl-seconds", "60"], en: "unknown option '--ttl-seconds'; did you mean '--ttl'?", es: "no existe la opción '--ttl-seconds'; ¿quisiste decir '--ttl'?" },
  { key: "unknown_option_guess", argv: ["serve", "--prot", "8443"], en: "unknown option '--prot'; did you mean '--port'?", es: "no existe la opción '--prot'; ¿quisiste decir '--port'?" },
  { key: "unknown_option_guess", argv: ["serve", "-port", "8443"], en: "unknown option '-port'; did you mean '--port'?", es: "no existe la opción '-port'; ¿quisiste decir '--port'?" },
  { key: "unknown_option_guess", argv: ["license", "set", "--expires", "none"], en: "unknown option '--expires'; did you mean '--expires-at'?", es: "no existe la opción '--expires'; ¿quisiste decir '--expires-at'?" },
  { key: "unknown_option_guess", argv: ["tenant", "list", "--datadir", "/x"], en: "unknown option '--datadir'; did you mean '--data-dir'?", es: "no existe la opción '--datadir'; ¿quisiste decir '--data-dir'?" },
  { key: "no_value", argv: ["tenant", "list", "--json=yes"], en: "--json takes no value; see 'cuadra tenant list --help'", es: "--json no lleva valor; mira 'cuadra tenant list --help'" },
  { key: "needs_value", argv: ["code", "create", "--ttl"], en: "--ttl needs a value: --ttl SECONDS; see 'cuadra code create --help'", es: "--ttl necesita un valor: --ttl SECONDS; mira 'cuadra code create --help'" },
  { key: "needs_value", argv: ["init", "--name", "--json"], en: "--name needs a value: --name NAME; see 'cuadra init --help'", es: "--name necesita un valor: --name NAME; mira 'cuadra init --help'" },
  { key: "missing_argument", argv: ["key", "revoke"], en: "KEY_ID is missing; see 'cuadra key revoke --help'", es: "falta KEY_ID; mira 'cuadra key revoke --help'" },
  { key: "extra_argument", argv: ["key", "revoke", "key_a", "key_b"], en: "unexpected 'key_b'; see 'cuadra key revoke --help'", es: "sobra 'key_b'; mira 'cuadra key revoke --help'" },
  { key: "extra_dash_argument", argv: ["key", "revoke", "--", "key_a", "-x"], en: "unexpected '-x' (a value that starts with '-' goes after '--'); see 'cuadra key revoke --help'", es: "sobra '-x' (un valor que empieza con '-' va después de '--'); mira 'cuadra key revoke --help'" },
  { key: "no_arguments", argv: ["tenant", "list", "extra"], en: "this command takes no arguments, not 'extra'; see 'cuadra tenant list --help'", es: "este comando no lleva argumentos (sobra 'extra'); mira 'cuadra tenant list --help'" },
  { key: "required", argv: ["init"], en: "--name is required; see 'cuadra init --help'", es: "falta --name; mira 'cuadra init --help'" },
  { key: "required", argv: ["key", "create"], en: "--env is required; see 'cuadra key create --help'", es: "falta --env; mira 'cuadra key create --help'" },
  { key: "choice", argv: ["key", "create", "--env", "prod"], en: "--env must be live|test, not 'prod'; see 'cuadra key create --help'", es: "--env debe ser live|test, no 'prod'; mira 'cuadra key create --help'" },
  { key: "choice", argv: ["serve", "--tls", "on"], en: "--tls must be auto|off, not 'on'; see 'cuadra serve --help'", es: "--tls debe ser auto|off, no 'on'; mira 'cuadra serve --help'" },
  { key: "choice", argv: ["license", "set", "--status", "paused"], en: "--status must be active|suspended, not 'paused'; see 'cuadra license set --help'", es: "--status debe ser active|suspended, no 'paused'; mira 'cuadra license set --help'" },
  { key: "choice", argv: ["news", "add", "--title", "a", "--body", "b", "--level", "loud"], en: "--level must be info|warning|critical, not 'loud'; see 'cuadra news add --help'", es: "--level debe ser info|warning|critical, no 'loud'; mira 'cuadra news add --help'" },
  { key: "whole_number", argv: ["license", "set", "--max-devices", "-1"], en: "--max-devices must be a whole number from 0 to 1000000; see 'cuadra license set --help'", es: "--max-devices debe ser un número entero de 0 a 1000000; mira 'cuadra license set --help'" },
  { key: "whole_number", argv: ["serve", "--port", "http"], en: "--port must be a whole number from 0 to 65535; see 'cuadra serve --help'", es: "--port debe ser un número entero de 0 a 65535; mira 'cuadra serve --help'" },
  { key: "duration", argv: ["code", "create", "--ttl", "4d"], en: "--ttl must be a time from 1s to 3d: seconds (900) or with a unit (15m, 2h, 3d), not '4d'; see 'cuadra code create --help'", es: "--ttl debe ser un tiempo de 1s a 3d: segundos (900) o con unidad (15m, 2h, 3d), no '4d'; mira 'cuadra code create --help'" },
  { key: "duration", argv: ["console", "link", "--ttl", "a week"], en: "--ttl must be a time from 1s to 1d: seconds (900) or with a unit (15m, 2h, 3d), not 'a week'; see 'cuadra console link --help'", es: "--ttl debe ser un tiempo de 1s a 1d: segundos (900) o con unidad (15m, 2h, 3d), no 'a week'; mira 'cuadra console link --help'" },
  { key: "expires_at", argv: ["license", "set", "--expires-at", "2027-02-30"], en: "--expires-at must be a date (2027-01-01), a date and time (2027-01-01T18:00 or ISO 8601 with an offset), epoch milliseconds or none, not '2027-02-30'; see 'cuadra license set --help'", es: "--expires-at debe ser una fecha (2027-01-01), fecha y hora (2027-01-01T18:00 o ISO 8601 con zona), milisegundos o none, no '2027-02-30'; mira 'cuadra license set --help'" },
  { key: "not_empty", argv: ["license", "set", "--plan", " "], en: "--plan must not be empty; see 'cuadra license set --help'", es: "--plan no puede estar vacío; mira 'cuadra license set --help'" },
  { key: "not_empty", argv: ["serve", "--name", " "], en: "--name must not be empty; see 'cuadra serve --help'", es: "--name no puede estar vacío; mira 'cuadra serve --help'" },
  { key: "not_empty", argv: ["device", "list", "--tenant", "", "--data-dir", "$DIR"], en: "--tenant must not be empty; see 'cuadra device list --help'", es: "--tenant no puede estar vacío; mira 'cuadra device list --help'" },
  { key: "tls_pair", argv: ["serve", "--tls-cert", "cert.pem"], en: "--tls-cert and --tls-key go together; see 'cuadra serve --help'", es: "--tls-cert y --tls-key van juntos; mira 'cuadra serve --help'" },
  { key: "tls_off_cert", argv: ["serve", "--tls", "off", "--tls-cert", "c.pem", "--tls-key", "k.pem"], en: "--tls off cannot be used with --tls-cert; see 'cuadra serve --help'", es: "--tls off no se puede usar con --tls-cert; mira 'cuadra serve --help'" },
  { key: "scale", argv: ["serve", "--rate-limit-scale", "-1"], en: "--rate-limit-scale must be a number ≥ 0, not '-1'; see 'cuadra serve --help'", es: "--rate-limit-scale debe ser un número ≥ 0, no '-1'; mira 'cuadra serve --help'" },
  { key: "public_url", argv: ["serve", "--public-url", "caja.local"], en: "--public-url must be a full http(s) address, e.g. https://caja.example.pe, not 'caja.local'; see 'cuadra serve --help'", es: "--public-url debe ser una dirección http(s) completa, p. ej. https://caja.example.pe, no 'caja.local'; mira 'cuadra serve --help'" },
  { key: "events", argv: ["webhook", "add", "--env", "test", "--url", "http://pos.local/hook", "--events", ","], en: "--events takes a comma-separated list of match.created, payment.received, payment.updated, device.offline, device.online, notification.unrecognized, webhook.test; see 'cuadra webhook add --help'", es: "--events lleva una lista separada por comas de match.created, payment.received, payment.updated, device.offline, device.online, notification.unrecognized, webhook.test; mira 'cuadra webhook add --help'" },
  { key: "events_unknown", argv: ["webhook", "add", "--env", "test", "--url", "http://pos.local/hook", "--events", "match.made"], en: "--events takes a comma-separated list of match.created, payment.received, payment.updated, device.offline, device.online, notification.unrecognized, webhook.test, not match.made; see 'cuadra webhook add --help'", es: "--events lleva una lista separada por comas de match.created, payment.received, payment.updated, device.offline, device.online, notification.unrecognized, webhook.test, no match.made; mira 'cuadra webhook add --help'" },
  { key: "webhook_url", argv: ["webhook", "add", "--env", "test", "--url", "ftp://pos.local", "--tenant", "Bodega Rosa", "--data-dir", "$DIR"], en: "--url must be a full http:// or https:// address, e.g. https://pos.example.pe/cuadra, not 'ftp://pos.local'; see 'cuadra webhook add --help'", es: "--url debe ser una dirección http:// o https:// completa, p. ej. https://pos.example.pe/cuadra, no 'ftp://pos.local'; mira 'cuadra webhook add --help'" },
  { key: "revoke_both", argv: ["console", "revoke", "ses_x", "--all"], en: "give either SESSION_ID or --all, not both; see 'cuadra console revoke --help'", es: "indica SESSION_ID o --all, no ambos; mira 'cuadra console revoke --help'" },
  { key: "revoke_neither", argv: ["console", "revoke"], en: "give SESSION_ID (see 'cuadra console sessions') or --all; see 'cuadra console revoke --help'", es: "indica SESSION_ID (mira 'cuadra console sessions') o --all; mira 'cuadra console revoke --help'" },
  { key: "tenant_ambiguous", argv: ["code", "create", "--data-dir", "$DIR"], en: "this box has 3 shops; say which one with --tenant: ten_ID (Bodega Rosa), ten_ID (Tienda Sur), ten_ID (Tienda Sur); see 'cuadra code create --help'", es: "esta caja tiene 3 negocios; indica cuál con --tenant: ten_ID (Bodega Rosa), ten_ID (Tienda Sur), ten_ID (Tienda Sur); mira 'cuadra code create --help'" },
  { key: "tenant_name_ambiguous", argv: ["code", "create", "--tenant", "tienda sur", "--data-dir", "$DIR"], en: "2 shops are called 'tienda sur'; say which one with --tenant and its id: ten_ID (Tienda Sur), ten_ID (Tienda Sur); see 'cuadra code create --help'", es: "2 negocios se llaman 'tienda sur'; indica cuál con --tenant y su id: ten_ID (Tienda Sur), ten_ID (Tienda Sur); mira 'cuadra code create --help'" },
];

describe("usage errors: exit 2, one line on stderr, nothing on stdout, in the reader's language", () => {
  for (const row of ROWS) {
    test(`cuadra ${row.argv.join(" ")}`.trim(), async () => {
      for (const [LANG, text] of [["C.UTF-8", row.en], ["en_US.UTF-8", row.en], ["es_PE.UTF-8", row.es], ["es_ES", row.es]] as const) {
        const r = await run(row.argv, LANG);
        expect({ LANG, code: r.code, err: r.err, out: r.out }).toEqual({ LANG, code: 2, err: [`error: ${text}`], out: "" });
      }
    });
  }

  test("a usage error is found before the data folder is looked at (none of these touch $MISSING)", async () => {
    for (const row of ROWS.filter((r) => !r.argv.includes("$DIR"))) {
      const r = await run([...row.argv, ...(row.argv.length > 0 && !row.argv.includes("--data-dir") ? ["--data-dir", "$MISSING"] : [])], "C");
      expect({ argv: row.argv, code: r.code }).toEqual({ argv: row.argv, code: 2 });
    }
    expect(existsSync(missing)).toBe(false);
  });

  test("every usage error of the catalogue has a row", () => {
    const documented = new Set(ROWS.map((r) => `cli.usage.${r.key}`));
    const all = Object.keys(es).filter((k) => k.startsWith("cli.usage.") && k !== "cli.usage.see" && k !== "cli.usage.see_all");
    expect(all.filter((k) => !documented.has(k))).toEqual([]);
  });
});

describe("what is not an error", () => {
  test("values in any case (--env LIVE, --status Suspended); --version, -v and version", async () => {
    const live = await run(["key", "create", "--env", "LIVE", "--tenant", "bodega rosa", "--json", "--data-dir", "$DIR"], "C");
    expect([live.code, JSON.parse(live.out).environment]).toEqual([0, "live"]);
    const suspended = await run(["license", "set", "--status", "Suspended", "--tenant", "Bodega Rosa", "--json", "--data-dir", "$DIR"], "C");
    expect([suspended.code, JSON.parse(suspended.out).status]).toEqual([0, "suspended"]);
    for (const v of [["--version"], ["-v"], ["version"]]) expect(await run(v, "C")).toMatchObject({ code: 0, out: expect.stringMatching(/^cuadra \d+\.\d+\.\d+/) });
  });

  test("--data-dir and --json may come before the command", async () => {
    const r = await run(["--data-dir", "$DIR", "--json", "tenant", "list"], "C");
    expect([r.code, JSON.parse(r.out).length]).toEqual([0, 3]);
    expect((await run(["--json", "version"], "C")).out).toMatch(/^\{"version":/);
  });

  test("'help COMMAND' and 'COMMAND --help' show the command's help, in the reader's language", async () => {
    const en = await run(["help", "code", "create"], "C");
    expect(en.code).toBe(0);
    expect(en.out).toContain("Usage: cuadra code create [--tenant ID] [--env live|test] [--ttl SECONDS] [--qr-png FILE]");
    expect(en.out).toContain("live (real payments, the default) or test");
    const es = await run(["code", "create", "--help"], "es_PE.UTF-8");
    expect(es.out).toContain("Uso: cuadra code create");
    expect(es.out).toContain("Crea un código de un solo uso");
  });
});
