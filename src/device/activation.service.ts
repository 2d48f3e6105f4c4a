// Activation (contract §4), without HTTP: the checks of steps 3 and 4, and the write that creates
// the device and spends its code.
import { and, count, eq, isNull, ne } from "drizzle-orm";
import { newId } from "../ids";
import type { Db } from "../store/db";
import { activationCodes, devices, tenants } from "../store/schema";
import { licenseOf, type License } from "../tenants/service";
import { findCodeByLetters } from "./codes";

/** contract §4: at least 32 random bytes. */
export const SECRET_BYTES = 32;

export interface NewDevice {
  label: string;
  platform: "android" | "ios";
  appVersion: string;
  osVersion: string;
}

export type Refusal =
  | { refused: "activation_code_unknown" | "activation_code_used" | "activation_code_expired" }
  | { refused: "license_suspended" | "device_limit_reached"; license: License };

/**
 * The checks of contract §4 steps 3 and 4 for the code with these letters, in that order. Pure
 * reads; activateDevice repeats them inside its transaction.
 */
export function checkActivation(db: Db, now: number, letters: string): Refusal | { code: typeof activationCodes.$inferSelect; license: License; tenantName: string } {
  const code = findCodeByLetters(db, letters);
  if (!code) return { refused: "activation_code_unknown" };
  if (code.usedAt !== null) return { refused: "activation_code_used" };
  if (now > code.expiresAt) return { refused: "activation_code_expired" };
  const tenant = db.select().from(tenants).where(eq(tenants.id, code.tenantId)).get()!;
  const license = licenseOf(db, { now: () => now }, tenant);
  if (license.status === "suspended") return { refused: "license_suspended", license };
  if (license.devices_in_use >= license.max_devices) return { refused: "device_limit_reached", license };
  return { code, license, tenantName: tenant.name };
}

/**
 * Creates the device and spends the code: a write of the writer (src/writes.ts), whose one thread
 * runs writes one at a time, so that of many requests with one code exactly one succeeds.
 * `sealedSecret` is the secret already encrypted.
 */
export function activateDevice(tx: Db, now: number, letters: string, device: NewDevice, sealedSecret: string) {
  const checked = checkActivation(tx, now, letters);
  if ("refused" in checked) return checked;
  const deviceId = newId("dev");
  tx.insert(devices)
    .values({
      id: deviceId,
      tenantId: checked.code.tenantId,
      environment: checked.code.environment,
      label: device.label,
      platform: device.platform,
      appVersion: device.appVersion,
      osVersion: device.osVersion,
      secretEnc: sealedSecret,
      createdAt: now,
    })
    .run();
  const spent = tx
    .update(activationCodes)
    .set({ usedAt: now, deviceId })
    .where(and(eq(activationCodes.id, checked.code.id), isNull(activationCodes.usedAt)))
    .returning({ id: activationCodes.id })
    .all();
  if (spent.length !== 1) throw new Error("activation code changed inside an IMMEDIATE transaction");
  const inUse = tx
    .select({ n: count() })
    .from(devices)
    .where(and(eq(devices.tenantId, checked.code.tenantId), ne(devices.status, "revoked")))
    .get()!.n;
  return {
    deviceId,
    environment: checked.code.environment,
    tenantId: checked.code.tenantId,
    tenantName: checked.tenantName,
    license: { ...checked.license, devices_in_use: inUse },
  };
}

