# Plants single-line bugs one at a time and runs the matching, duplicate, signing, cursor, commit,
# webhook, notification and lists-for-people
# tests against each (issue 10, part 3). Run from the project root: python3 test/mutants/plant.py [N …]
# It restores every file it changes. Not part of `bun test`.
import subprocess, sys, json, shutil, os
os.makedirs("/tmp/mut", exist_ok=True)
M = [
 # matching engine
 ("src/matching/engine.ts", "if (order.status === \"pending\" && now > order.expiresAt) return \"expired\";", "if (order.status === \"pending\" && now >= order.expiresAt) return \"expired\";", "expiry at expires_at exactly"),
 ("src/matching/engine.ts", "return order.createdAt - EARLY_PAYMENT_MS <= occurredAt && occurredAt <= order.expiresAt;", "return order.createdAt - EARLY_PAYMENT_MS < occurredAt && occurredAt <= order.expiresAt;", "window start exclusive"),
 ("src/matching/engine.ts", "return order.createdAt - EARLY_PAYMENT_MS <= occurredAt && occurredAt <= order.expiresAt;", "return order.createdAt - EARLY_PAYMENT_MS <= occurredAt && occurredAt < order.expiresAt;", "window end exclusive"),
 ("src/matching/engine.ts", "return a !== null && b !== null && a !== b;", "return a !== null && a !== b;", "code conflict with one side absent"),
 ("src/matching/engine.ts", "    order.currency === payment.currency &&\n", "", "currency not compared"),
 ("src/matching/engine.ts", "if (withCode.length === 1) return", "if (withCode.length >= 1) return", "rule 1 with two carrying the code"),
 ("src/matching/engine.ts", "if (fitting.length === 1) return", "if (fitting.length >= 1) return", "rule 3 with two fitting names"),
 ("src/matching/engine.ts", "theirs.pick.seq === payment.seq", "theirs.pick.seq !== payment.seq", "order's side ignored"),
 ("src/matching/engine.ts", "for (let k = 0; k <= UNIQUE_AMOUNT_MAX_OFFSET; k++) {", "for (let k = 0; k < UNIQUE_AMOUNT_MAX_OFFSET; k++) {", "k = 99 never offered"),
 ("src/matching/names.ts", "return payer.every((word, i) => customer[i]!.startsWith(word));", "return payer.every((word, i) => customer.some((c) => c.startsWith(word)));", "names compared out of order"),
 ("src/matching/names.ts", "if (payer.length > customer.length) return false;", "", "more payer words than customer words"),
 ("src/matching/names.ts", "return text.normalize(\"NFD\").replace(/\\p{M}+/gu, \"\").toLowerCase();", "return text.toLowerCase();", "accents not folded"),
 ("src/matching/store.ts", "WHERE tenant_id = $tenantId AND environment = $environment AND status = 'pending' AND expected_amount = $amount", "WHERE tenant_id = $tenantId AND status = 'pending' AND expected_amount = $amount", "candidates not scoped to environment"),
 # duplicates
 ("src/payments/duplicates.ts", "if (incoming.deviceId === null || other.deviceId === null || incoming.deviceId === other.deviceId) return null;", "if (incoming.deviceId === null || other.deviceId === null) return null;", "same phone counts as duplicate"),
 ("src/payments/duplicates.ts", "if (incoming.source !== other.source) return null;", "", "source not compared"),
 ("src/payments/duplicates.ts", "    incoming.payerName === other.payerName &&\n", "", "payer not compared"),
 ("src/payments/duplicates.ts", "(incoming.securityCode === null || other.securityCode === null || incoming.securityCode === other.securityCode)", "(incoming.securityCode === other.securityCode)", "code absent on one side blocks"),
 ("src/payments/duplicates.ts", "      c.matchStatus === \"duplicate\" ? 1 : 0,", "      0,", "duplicate preferred as original"),
 ("src/payments/store-event.ts", "AND source = ? AND amount = ? AND occurred_at BETWEEN ? AND ? AND payer_name IS ? AND device_id IS NOT NULL AND device_id <> ?", "AND source = ? AND amount = ? AND occurred_at BETWEEN ? AND ? AND payer_name IS ? AND device_id IS NOT NULL AND device_id <> ? AND 0", "details query finds nothing"),
 # signing
 ("src/device/signing.ts", "return `${timestamp}\\n${method.toUpperCase()}\\n${path}\\n${sha256Hex(body)}`;", "return `${timestamp}\\n${method}\\n${path}\\n${sha256Hex(body)}`;", "method not upper-cased"),
 ("src/device/signing.ts", "return constantTimeEqual(expected, given.toLowerCase());", "return constantTimeEqual(expected, given);", "signature case-sensitive"),
 ("src/device/auth.ts", "Math.abs(timestamp - now) > MAX_CLOCK_SKEW_MS", "Math.abs(timestamp - now) >= MAX_CLOCK_SKEW_MS", "skew boundary exclusive"),
 ("src/device/auth.ts", "Math.abs(timestamp - now) > MAX_CLOCK_SKEW_MS", "timestamp - now > MAX_CLOCK_SKEW_MS", "old timestamps accepted"),
 # cursors
 ("src/connector/cursor.ts", "if (plain.readBigUInt64BE(8) !== 0n) return null;", "", "cursor check bytes ignored"),
 ("src/connector/cursor.ts", "const id = `${kind}\\u0000${scope.tenantId}\\u0000${scope.environment}`;", "const id = `${kind}\\u0000${scope.tenantId}`;", "cursor not bound to environment"),
 ("src/connector/matches.service.ts", "} else if (seq > current) {", "} else if (seq !== current) {", "ack goes backwards"),
 ("src/connector/cursor.ts", "const page = rows.slice(0, q.limit);", "const page = rows.slice(0, q.limit + 1);", "events page one too long"),
 # commit
 ("src/store/commit-queue.ts", "if (i > 0 && performance.now() - started > TRANSACTION_BUDGET_MS) {", "if (i > 0 && performance.now() - started > TRANSACTION_BUDGET_MS * 100) {", "budget ignored"),
 ("src/store/commit-queue.ts", "      if (o.ok) item.resolve(o.value);", "      if (o.ok || true) item.resolve(o.ok ? o.value : undefined);", "failed write reported as success"),
 # webhooks (issue 11)
 ("src/webhooks/schedule.ts", "if (attempts >= MAX_ATTEMPTS) return", "if (attempts > MAX_ATTEMPTS) return", "a ninth attempt"),
 ("src/webhooks/schedule.ts", "return Math.round(base * (1 - JITTER + 2 * JITTER * random));", "return Math.round(base * (1 + JITTER * random));", "jitter only upwards"),
 ("src/webhooks/schedule.ts", "result.retryAfterMs <= MAX_RETRY_AFTER_MS", "result.retryAfterMs < MAX_RETRY_AFTER_MS", "Retry-After of exactly an hour ignored"),
 ("src/webhooks/schedule.ts", "now - since >= FAILING_DISABLE_MS", "now - since > FAILING_DISABLE_MS", "five days exactly not disabled"),
 ("src/webhooks/signature.ts", "update(`${messageId}.${timestampSeconds}.${body}`)", "update(`${messageId}.${timestampSeconds}${body}`)", "signed content without its second dot"),
 ("src/webhooks/outbox.ts", "  return list.includes(type);", "  return list.length > 0;", "endpoint gets types it did not list"),
 ("src/webhooks/outbox.ts", "WHERE tenant_id = ? AND environment = ? AND status = 'enabled' AND deleted_at IS NULL`", "WHERE tenant_id = ? AND status = 'enabled' AND deleted_at IS NULL`", "live endpoints get test events"),
 ("src/webhooks/delivery.ts", "redirect: \"manual\"", "redirect: \"follow\"", "redirects followed"),
 ("src/webhooks/delivery.ts", "m.previousSecretUntil > now", "m.previousSecretUntil > 0", "previous secret signs forever"),
 ("src/webhooks/endpoints.service.ts", "lt(webhookMessages.seq, before),", "lt(webhookMessages.seq, before + 1),", "messages page repeats its last"),
 ("src/webhooks/endpoints.service.ts", "and(eq(webhookEndpoints.tenantId, scope.tenantId), eq(webhookEndpoints.environment", "and(eq(webhookEndpoints.environment", "endpoint lookup not scoped to tenant"),
 ("src/device/service.ts", "lt(devices.lastHeartbeatAt, now - ONLINE_WINDOW_MS)", "lt(devices.lastHeartbeatAt, now - ONLINE_WINDOW_MS + 1)", "offline 1 ms early"),
 ("src/matching/status-writes.ts", "if (event && event.matchStatus === r.status) queueWebhook", "if (event) queueWebhook", "payment.updated for a change not made"),
 # notifications read on the box (issue 12): each with the notification tests only (NT)
 ("src/notifications/amount.ts", "Number(decimals.padEnd(2, \"0\"))", "Number(decimals)", "S/ 56.7 read as 56.07", "NT"),
 ("src/notifications/amount.ts", "const n = written.replace(/[.,]$/, \"\");", "const n = written;", "a sentence's full stop read into the amount", "NT"),
 ("src/notifications/amount.ts", "if (whole.includes(group) && !new RegExp", "if (false && !new RegExp", "thousands grouping not checked", "NT"),
 ("src/notifications/recogniser.ts", "const wallet = byPackage.get(n.package.trim());", "const wallet = byPackage.get(n.package.trim()) ?? wallets[0];", "any package read as Yape", "NT"),
 ("src/notifications/recogniser.ts", ".replace(/\\s+/gu, \" \")", ".replace(/ +/gu, \" \")", "no-break space not normalised", "NT"),
 ("src/notifications/recogniser.ts", "    if (REDACTED.some((r) => r.test(text))) return { status: \"unrecognized\", format: REDACTED_FORMAT };\n", "", "Android's redaction not told apart", "NT"),
 ("src/notifications/recogniser.ts", "    if (MONEY_RECEIVED.test(text)) return { status: \"unrecognized\", format: null };\n", "", "money-received texts dropped by the look-alike rules", "NT"),
 ("src/notifications/recogniser.ts", "(name !== null && name.length > MAX_NAME)", "(name !== null && name.length > 2 * MAX_NAME)", "names longer than 128", "NT"),
 ("src/notifications/wallets/format.ts", "[\\p{L}\\p{N}][\\p{L}\\p{M}\\p{N}'’&*\\-]*,?|&)`;", "[\\p{L}\\p{N}][\\p{L}\\p{M}\\p{N}'’&*\\-.]*,?|&)`;", "a sentence before the wording read as the name", "NT"),
 ("src/notifications/recogniser.ts", "return cut(title, /^ ?[:\\-–] (.+)$/su);", "return cut(title, /^ ?[:\\-–]? (.+)$/su);", "the phone's title cut off a payer's name", "NT"),
 ("src/notifications/wallets/format.ts", "const CODE = String.raw`(?<code>\\d{3})`;", "const CODE = String.raw`(?<code>\\d{3,4})`;", "four-digit codes read", "NT"),
 ("src/notifications/store.ts", "const kept = reading.status !== \"not_a_payment\";", "const kept = true;", "a not-a-payment's private text kept", "NT"),
 ("src/notifications/store.ts", "if (row.occurred_at < now - MAX_AGE_MS) {", "if (row.occurred_at < now - 2 * MAX_AGE_MS) {", "payments older than 30 days stored on reparse", "NT"),
 ("src/notifications/reparse.ts", "row.occurred_at < now - MAX_AGE_MS) summary.too_old++;", "row.occurred_at < now - 2 * MAX_AGE_MS) summary.too_old++;", "too-old payments sent to the writer at every start", "NT"),
 ("src/notifications/store.ts", "if (reading.status === \"unrecognized\") {", "if (reading.status !== \"payment\") {", "not-a-payment raised as unrecognised", "NT"),
 ("src/notifications/store.ts", "    s.setReading.run(\"payment\", reading.format, seq);\n", "", "a reparsed payment's notification left unrecognised", "NT"),
 ("src/payments/store-event.ts", " ?? stmts.findNotification.get(scope.deviceId, eventId)", "", "event ids not shared across kinds", "NT"),
 ("src/notifications/views.ts", "now - COUNT_WINDOW_MS)", "now - 2 * COUNT_WINDOW_MS)", "counts over 14 days", "NT"),
 ("src/notifications/reparse.ts", "if (reading.status !== \"unrecognized\" || reading.format !== row.format)", "if (reading.status !== \"unrecognized\")", "a new format of an unrecognised one not recorded", "NT"),
 # pairing (contract §17): "PT" runs the pairing tests only
 ("src/pairing/uri.ts", "if (base.protocol === \"https:\" && fp === null) throw", "if (false) throw", "an https URI without fp accepted", "PT"),
 ("src/pairing/uri.ts", "${fp ? `&fp=${fp}` : \"\"}", "", "fp left out of the URI", "PT"),
 ("src/pairing/base-url.ts", "(a === 172 && b >= 16 && b <= 31)", "(a === 172 && b >= 16 && b <= 32)", "172.32/16 taken for private", "PT"),
 ("src/pairing/base-url.ts", "addresses.find(isPrivateIPv4) ?? addresses[0]", "addresses[0]", "first address, private or not", "PT"),
 ("src/pairing/qr.ts", "const bottom = rows[y + 1]?.[x] ? DARK : LIGHT;", "const bottom = rows[y + 1]?.[x] ? LIGHT : DARK;", "lower modules inverted", "PT"),
 ("src/pairing/qr.ts", "export const QUIET_ZONE = 4;", "export const QUIET_ZONE = 1;", "quiet zone too thin", "PT"),
 ("src/pairing/qr.ts", "  chmodSync(file, 0o600);\n", "", "PNG readable by all", "PT"),
 ("src/pairing/announce.ts", "return { v: \"1\", path: DEVICE_PATH, ...(fp ? { fp } : {}) };", "return { v: \"1\", path: DEVICE_PATH };", "fp not announced", "PT"),
 ("src/pairing/announce.ts", "encode(name).length > MAX_LABEL_BYTES", "encode(name).length >= MAX_LABEL_BYTES", "instance name cut one byte short", "PT"),
 ("src/client/pinning.ts", "fingerprintOfDer(cert.raw) === fp ? undefined", "true ? undefined", "the pin not checked on connections", "PT"),
 ("src/client/pinning.ts", "      if (!isCertificateError(e)) throw e;", "      throw e;", "a changed certificate not read again", "PE"),
 ("src/client/device-client.ts", "if (res.ok || REFUSES_THE_EVENT.has(res.status)) {", "if (res.ok || res.status >= 400) {", "refused events dropped", "PT"),
 ("src/client/device-client.ts", "if (res.status === 200 && this.queue.length > 0) await this.flush();", "", "heartbeat does not send the queue", "PT"),
 ("src/client/device-client.ts", "        if (!searched && (await this.findBox())) {", "        if (false) {", "never browses", "PT"),
 ("src/client/discover.ts", "if (String(txt.fp ?? \"\").toLowerCase() !== fp || txt.v !== \"1\") return null;", "if (txt.v !== \"1\") return null;", "any box's announcement taken", "PE"),
 ("src/device/activation.ts", "tls_fingerprint: deps.config.tlsFingerprint ?? null,", "tls_fingerprint: null,", "activation without fingerprint", "PT"),
 ("src/cli/serve.ts", "unnamed.length > 0 && unnamed.length === ownAddresses.length", "unnamed.length > 1 && unnamed.length === ownAddresses.length", "no warning for one unnamed address", "PE"),
 ("src/cli/serve.ts", "  await announcement?.stop();\n", "", "no goodbye on shutdown", "PE"),
 ("src/cli/serve.ts", "  recordBoxAddress(ctx.dataDir, address);\n", "", "code create does not learn the address", "PE"),
 # lists for people (contract §19): "LT" runs the lists' tests only
 ("src/connector/orders.service.ts", "b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)", "a.createdAt - b.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)", "orders list oldest first", "LT"),
 ("src/connector/orders.service.ts", "b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)", "b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)", "ties on created_at by id ascending", "LT"),
 ("src/connector/orders.service.ts", "sql`(${orders.createdAt}, ${orders.id}) < (${p(\"createdAt\")}, ${p(\"id\")})`,", "sql`(${orders.createdAt}, ${orders.id}) <= (${p(\"createdAt\")}, ${p(\"id\")})`,", "a page starts with the previous page's last order", "LT"),
 ("src/connector/orders.service.ts", "else if (statuses.has(\"pending\")) parts.push(stored(\"pending\", now));", "else if (statuses.has(\"pending\")) parts.push(stored(\"pending\"));", "pending orders past expires_at listed as pending", "LT"),
 ("src/connector/orders.service.ts", "else if (statuses.has(\"pending\")) parts.push(stored(\"pending\", now));", "else if (statuses.has(\"pending\")) parts.push(stored(\"pending\", now + 1));", "pending at expires_at exactly left out", "LT"),
 ("src/connector/orders.service.ts", "  else if (statuses.has(\"expired\")) parts.push(s.listPastExpiry.all({ ...at, now }));\n", "", "unswept expired orders missing from status=expired", "LT"),
 ("src/connector/orders.service.ts", "          lt(orders.expiresAt, p(\"now\")),", "          lte(orders.expiresAt, p(\"now\")),", "an order at expires_at exactly listed as expired", "LT"),
 ("src/connector/orders.service.ts", "if (statuses.has(\"pending\") && statuses.has(\"expired\")) parts.push(stored(\"pending\"));", "if (statuses.has(\"pending\") && statuses.has(\"expired\")) parts.push(stored(\"pending\", now));", "pending+expired without the unswept expired", "LT"),
 ("src/connector/orders.service.ts", "const last = page.length > 0 ? page[page.length - 1]! : from;", "const last = page.length > 0 ? page[0]! : from;", "next_cursor at the page's first order", "LT"),
 ("src/connector/orders.service.ts", "      has_more: rows.length > limit,", "      has_more: rows.length >= limit,", "has_more on a full last page", "LT"),
 ("src/connector/orders.service.ts", "ordersWithStatus(tx, scope, statuses, from, limit + 1, now)", "ordersWithStatus(tx, scope, statuses, from, limit, now)", "has_more never true", "LT"),
 ("src/connector/query.ts", "if (!(ORDER_STATUSES as readonly string[]).includes(s)) {", "if (false) {", "unknown status accepted", "LT"),
 ("src/connector/cursor.ts", "    if (!timingSafeEqual(ivOf(scope, plain), iv)) return null;\n", "", "order cursors not authenticated", "LT"),
 ("src/matching/store.ts", "notExpiredBefore: payment.occurredAt,\n    createdAtMost: payment.occurredAt + EARLY_PAYMENT_MS,", "notExpiredBefore: payment.occurredAt,\n    createdAtMost: payment.occurredAt + EARLY_PAYMENT_MS + 1,", "candidates: pending window starts 1 ms early", "LT"),
 ("src/matching/store.ts", "notExpiredBefore: payment.occurredAt,\n    createdAtMost: payment.occurredAt + EARLY_PAYMENT_MS,", "notExpiredBefore: payment.occurredAt + 1,\n    createdAtMost: payment.occurredAt + EARLY_PAYMENT_MS,", "candidates: pending window ends 1 ms early", "LT"),
 ("src/connector/views.service.ts", "gte(orders.expiresAt, p(\"occurredAt\")),", "gt(orders.expiresAt, p(\"occurredAt\")),", "candidates: expired window end exclusive", "LT"),
 ("src/connector/views.service.ts", "createdAtMost: event.occurredAt + EARLY_PAYMENT_MS })", "createdAtMost: event.occurredAt + EARLY_PAYMENT_MS + 1 })", "candidates: expired window starts 1 ms early", "LT"),
 ("src/connector/views.service.ts", "around.sort((a, b) => distance(a) - distance(b) ||", "around.sort((a, b) => distance(b) - distance(a) ||", "candidates of the amount farthest first", "LT"),
 ("src/connector/views.service.ts", "const first = around.slice(0, SAME_AMOUNT_CANDIDATES_MAX).map((o) => o.id);", "const first = around.map((o) => o.id);", "no bound on the candidates of the amount", "LT"),
 ("src/connector/views.service.ts", ".filter((o) => !taken.has(o.id)).slice(0, need)", ".filter((o) => !taken.has(o.id))", "no cap on the candidates", "LT"),
 ("src/connector/views.service.ts", ".filter((o) => !taken.has(o.id)).slice(0, need)", ".slice(0, need)", "candidates of the amount listed twice", "LT"),
 ("src/connector/views.service.ts", "candidates: WAITING.includes(event.matchStatus) ? candidatesFor(tx, scope, event, now) : []", "candidates: candidatesFor(tx, scope, event, now)", "candidates for a matched payment", "LT"),
 ("src/connector/views.service.ts", "new Set([\"pending\", \"expired\"])", "new Set([\"pending\", \"expired\", \"cancelled\"])", "cancelled orders as candidates", "LT"),
 ("src/connector/views.service.ts", "new Set([\"pending\", \"expired\"])", "new Set([\"pending\"])", "expired orders missing from the other candidates", "LT"),
 ("src/connector/orders.service.ts", "          eq(sql`+${orders.tenantId}`, p(\"tenantId\")),", "          eq(orders.tenantId, p(\"tenantId\")),", "unswept expired orders found by walking every pending order", "LT"),
 # the merchant's console (contract §18): "CT" runs the console's tests
 ("src/console/sessions.ts", "if (!link || link.usedAt !== null || link.expiresAt <= now) {", "if (!link || link.expiresAt <= now) {", "a sign-in link works twice", "CT"),
 ("src/console/sessions.ts", "if (!link || link.usedAt !== null || link.expiresAt <= now) {", "if (!link || link.usedAt !== null) {", "an expired link still signs in", "CT"),
 ("src/console/sessions.ts", "return row && row.revokedAt === null && row.expiresAt > now ? row : null;", "return row && row.expiresAt > now ? row : null;", "a revoked session still works", "CT"),
 ("src/console/sessions.ts", "return row && row.revokedAt === null && row.expiresAt > now ? row : null;", "return row && row.revokedAt === null ? row : null;", "a session never expires", "CT"),
 ("src/console/context.ts", "if (origin !== null && !sameOrigin(deps, request, origin)) {", "if (origin === \"null\") {", "another origin accepted", "CT"),
 ("src/console/context.ts", "if (!constantTimeEqual(form.get(\"_csrf\") ?? \"\", view.csrf)) {", "if (false) {", "the form token not checked", "CT"),
 ("src/console/context.ts", "HttpOnly; SameSite=Strict; Max-Age", "SameSite=Strict; Max-Age", "session cookie readable by scripts", "CT"),
 ("src/console/context.ts", "scope: { tenantId: session.tenantId, environment: session.environment },", "scope: { tenantId: session.tenantId, environment: \"live\" },", "the test switch ignored", "CT"),
 ("src/console/pages/charge.ts", "          unique_amount: true,", "          unique_amount: false,", "charges of one price not told apart", "CT"),
 ("src/console/pages/charge.ts", "export const CHARGE_TTL_MS = 15 * 60 * 1000;", "export const CHARGE_TTL_MS = 30 * 60 * 1000;", "a charge open 30 minutes", "CT"),
 ("src/i18n/format.ts", "  if (/^\\d+,\\d{1,2}$/.test(s)) s = s.replace(\",\", \".\");\n", "", "a decimal comma not read", "CT"),
 ("src/i18n/index.ts", "return ranked[0]?.base === \"en\" ? \"en\" : \"es\";", "return ranked.some((x) => x.base === \"en\") ? \"en\" : \"es\";", "English whenever the browser lists it", "CT"),
 ("src/console/html.ts", "  return escapeHtml(String(value));", "  return String(value);", "values not escaped", "CT"),
 ("src/tenants/service.ts", "if (!row || (tenantId !== undefined && row.tenantId !== tenantId)) throw new NotFoundError(`no key ${keyId}", "if (!row) throw new NotFoundError(`no key ${keyId}", "another shop's key revoked", "CT"),
 ("src/device/service.ts", "if (!row || (scope && (row.tenantId !== scope.tenantId || row.environment !== scope.environment))) {", "if (!row) {", "another shop's phone revoked", "CT"),
 ("src/console/layout.ts", "    lic.status === \"suspended\"", "    lic.reason === \"suspended\"", "an expired license not shown", "CT"),
 ("src/console/pages/parts.ts", "const quiet = phones.filter((p) => p.status === \"active\" && !p.online);", "const quiet = phones.filter((p) => p.status === \"revoked\" && !p.online);", "quiet phones not warned of", "CE"),
 ("src/console/queries.ts", "      AND match_status <> 'duplicate'", "", "duplicates counted in Hoy", "CT"),
 ("src/console/queries.ts", "  rows.sort((a, b) => b.seq - a.seq);", "  rows.sort((a, b) => a.seq - b.seq);", "payments oldest first", "CT"),
 ("src/console/queries.ts", "const before = q.before ? (cursors.parse(\"event\", scope, q.before) ?? Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;", "const before = q.before ? Number(q.before.length) : Number.MAX_SAFE_INTEGER;", "the payments cursor not read", "CT"),
 ("src/console/pages/charge.ts", "return back && /^\\/console\\/[A-Za-z0-9._~%/#?=&-]*$/.test(back) && !back.startsWith(\"//\") ? back : \"/console/\";", "return back ?? \"/console/\";", "a form sends the browser anywhere", "CT"),
 ("src/console/index.ts", "              return redirect(\"/console/\", { \"set-cookie\": sessionCookie(session.token, isHttps(deps, request)) });", "              return redirect(\"/console/\", { \"set-cookie\": sessionCookie(session.token, false) });", "no Secure cookie over HTTPS", "CT"),
 ("src/console/assets.ts", "          if (!next || next.innerHTML === el.innerHTML || el.contains(document.activeElement)) return;", "          return;", "lists never update by themselves", "CE"),
 # the command line (issue 15)
 ("src/cli/did-you-mean.ts", "      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);", "", "a swap counts as two edits", "CL"),
 ("src/cli/did-you-mean.ts", "  if (best && best.distance <= Math.max(1, Math.floor(word.length / 3))) return best.word;", "  if (best && best.distance <= word.length) return best.word;", "any word is a guess", "CL"),
 ("src/cli/did-you-mean.ts", "    (k) => (word.length >= 2 && k.startsWith(word) && /[- ]/.test(k[word.length] ?? \"\")) || word.startsWith(`${k}-`) || word.startsWith(`${k} `),", "    (k) => word.startsWith(`${k} `),", "no guess by word boundary", "CL"),
 ("src/cli/framework.ts", "  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || \"\";", "  const locale = env.LANG || env.LC_ALL || \"\";", "LANG before LC_ALL", "CL"),
 ("src/cli/framework.ts", "  const lower = String(v).trim().toLowerCase();", "  const lower = String(v).trim();", "values case-sensitive", "CL"),
 ("src/cli/framework.ts", "      if (next !== undefined && !(next.startsWith(\"--\") && next.slice(2).split(\"=\")[0]! in specs)) {", "      if (next !== undefined) {", "an option taken as a value", "CL"),
 ("src/cli/framework.ts", "const SUGGESTS = new Set<MessageKey>([\"cli.usage.unknown_command_guess\", \"cli.usage.unknown_option_guess\", \"cli.usage.unknown_command_group\"]);", "const SUGGESTS = new Set<MessageKey>([]);", "a guess followed by see --help", "CL"),
 ("src/cli/framework.ts", "  if (!guess) {", "  if (false) {", "no group guess", "CL"),
 ("src/cli/data-dir.ts", "  if (!create) {", "  if (false) {", "reading commands create the data folder", "CL"),
 ("src/cli/data-dir.ts", "  if (owner !== null && ownerUid !== uid) {", "  if (false) {", "another user's folder not explained", "CLE"),
 ("src/cli/shops.ts", "  if (shops.length === 1) return shops[0]!.tenant_id;", "  if (shops.length >= 1) return shops[0]!.tenant_id;", "first shop picked when several", "CL"),
 ("src/cli/shops.ts", "    const byName = shops.filter((s) => s.name.trim().toLowerCase() === given.toLowerCase());", "    const byName = shops.filter((s) => s.name === given);", "shop name case-sensitive", "CL"),
 ("src/i18n/format.ts", "  const zone = offset === 0 ? \"Z\" : `${offset > 0 ? \"+\" : \"-\"}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;", "  const zone = offset === 0 ? \"Z\" : `${offset > 0 ? \"-\" : \"+\"}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;", "offset sign swapped", "CLE"),
 ("src/i18n/format.ts", "    ms = new Date(...parts).getTime(); // local time of the box", "    ms = Date.UTC(...parts); // local time of the box", "dates read as UTC", "CLE"),
 ("src/i18n/format.ts", "  if (check.getUTCMonth() !== parts[1] || check.getUTCDate() !== parts[2] || parts[3] > 23 || parts[4] > 59 || parts[5] > 59) return null;", "", "impossible dates roll over", "CL"),
 ("src/i18n/format.ts", "  if (minutes > 0 && days === 0) parts.push(t(\"cli.duration.minutes\", { n: minutes }));", "  if (minutes > 0) parts.push(t(\"cli.duration.minutes\", { n: minutes }));", "durations with three units", "CL"),
 ("src/cli/commands.ts", "        r.status === \"revoked\" ? t(\"cli.devices.revoked\") : isOnline(d?.lastHeartbeatAt ?? null, now) ? t(\"cli.devices.online\") : t(\"cli.devices.offline\");", "        r.status === \"revoked\" ? t(\"cli.devices.revoked\") : isOnline(r.last_seen_at, now) ? t(\"cli.devices.online\") : t(\"cli.devices.offline\");", "online by last_seen_at", "CL"),
 ("src/cli/commands.ts", "  return `${head}\\n${t(\"cli.license.refused\")}`;", "  return head;", "suspension not explained", "CL"),
 ("src/cli/commands.ts", "      const environment = readEnvironment(o, \"live\");", "      const environment = readEnvironment(o);", "code create needs --env", "CL"),
 ("src/cli/serve.ts", "    await checkCanListen(host, port);", "", "port checked after the shop is made", "CLE"),
 ("src/cli/serve.ts", "  } else if (hasTenant && name !== undefined && name !== firstShopName(store)) {", "  } else if (false) {", "--name ignored silently", "CLE"),
]
TESTS = "test/matching-engine.test.ts test/matching-service.test.ts test/matching-properties.test.ts test/reevaluation.test.ts test/payments-duplicates.test.ts test/device-auth.test.ts test/signing.test.ts test/device-events.test.ts test/connector-feed.test.ts test/connector-views.test.ts test/unit-cursor.test.ts test/writer.test.ts test/concurrency.test.ts test/connector-isolation.test.ts test/connector-manual.test.ts test/events-by-hour.test.ts test/webhooks-schedule.test.ts test/webhooks-http.test.ts".split()
PT = "test/pairing-unit.test.ts test/pairing-tls.test.ts test/device-client.test.ts test/device-codes.test.ts test/device-activation.test.ts test/cli-commands.test.ts".split()
PE = "test/e2e-pairing.test.ts".split()
LT = "test/connector-lists.test.ts test/unit-cursor.test.ts test/connector-manual.test.ts test/connector-views.test.ts test/connector-query-plans.test.ts".split()
CT = "test/console-unit.test.ts test/console-http.test.ts test/cli-commands.test.ts".split()
CE = "test/e2e-console-browser.test.ts".split()
CL = "test/cli-usage.test.ts test/cli-unit.test.ts test/cli-listings.test.ts test/cli-commands.test.ts test/cli-framework.test.ts".split()
CLE = "test/e2e-cli.test.ts".split()
NT = "test/notifications-recogniser.test.ts test/notifications-http.test.ts test/device-events.test.ts test/connector-views.test.ts".split()
only = set(int(x) for x in sys.argv[1:]) if len(sys.argv) > 1 else None
res = []
for i,m in enumerate(M):
    f,old,new,name = m[:4]
    tests = {"NT": NT, "PT": PT, "PE": PE, "LT": LT, "CT": CT, "CE": CE, "CL": CL, "CLE": CLE}[m[4]] if len(m) > 4 else TESTS
    if only is not None and i not in only: continue
    src = open(f).read()
    if old not in src:
        res.append((i,name,"NOT APPLIED")); print(i,name,"NOT APPLIED", flush=True); continue
    shutil.copy(f, "/tmp/mut/orig")
    open(f,"w").write(src.replace(old,new,1))
    try:
        p = subprocess.run(["bun","test",*tests], capture_output=True, text=True, timeout=300)
        out = p.stdout + p.stderr
        fails = [l for l in out.splitlines() if l.startswith("(fail)")]
        caught = p.returncode != 0
        res.append((i,name,"caught" if caught else "SURVIVED", fails[:2]))
        print(i, name, "caught" if caught else "SURVIVED", fails[:1], flush=True)
    finally:
        shutil.copy("/tmp/mut/orig", f)
json.dump(res, open("/tmp/mut/result.json","w"))
