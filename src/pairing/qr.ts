// QR codes of pairing URIs: drawn in the terminal, or written as a PNG (--qr-png). The encoding
// is the `qrcode` library's; only the drawing is ours, because a terminal drawing must set both
// colours itself: drawn in the terminal's own colours it comes out inverted on a light theme and
// phones do not read it.
import { chmodSync } from "node:fs";
import QRCode from "qrcode";

/** Modules of light margin around the code, as the QR standard asks (ISO/IEC 18004: 4). */
export const QUIET_ZONE = 4;
// Medium error correction: the code still reads from a photo of a glossy screen.
const OPTIONS = { errorCorrectionLevel: "M" } as const;

const DARK = { fg: 30, bg: 40 }; // black
const LIGHT = { fg: 97, bg: 107 }; // bright white
const RESET = "\x1b[0m";
const UPPER_HALF = "▀";

/** The code's modules, quiet zone included: true = dark. */
export function qrModules(text: string): boolean[][] {
  const { modules } = QRCode.create(text, OPTIONS);
  const size = modules.size + 2 * QUIET_ZONE;
  return Array.from({ length: size }, (_, y) =>
    Array.from({ length: size }, (_, x) => {
      const [r, c] = [y - QUIET_ZONE, x - QUIET_ZONE];
      return r >= 0 && c >= 0 && r < modules.size && c < modules.size && modules.get(r, c) === 1;
    }),
  );
}

/**
 * Two rows of modules per line of text: each character is an upper half block whose foreground
 * paints the upper module and background the lower one, both in explicit ANSI colours (dark on
 * white, whatever the terminal's theme), so a module is square and the code fits 80 columns.
 */
export function qrForTerminal(text: string): string {
  const rows = qrModules(text);
  const lines: string[] = [];
  for (let y = 0; y < rows.length; y += 2) {
    let line = "";
    for (let x = 0; x < rows[y]!.length; x++) {
      const top = rows[y]![x] ? DARK : LIGHT;
      const bottom = rows[y + 1]?.[x] ? DARK : LIGHT;
      line += `\x1b[${top.fg};${bottom.bg}m${UPPER_HALF}`;
    }
    lines.push(line + RESET);
  }
  return lines.join("\n");
}

/** Writes the code as a PNG, readable by its owner only: it holds an activation code. */
export async function writeQrPng(text: string, file: string): Promise<void> {
  await QRCode.toFile(file, text, { ...OPTIONS, type: "png", margin: QUIET_ZONE, scale: 8, color: { dark: "#000000ff", light: "#ffffffff" } });
  chmodSync(file, 0o600);
}
