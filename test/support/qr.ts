// Reads QR codes back the way a phone's camera would, with a decoder we did not write (jsQR):
// from the terminal drawing (ANSI colours, half blocks), from a PNG file or from a screenshot.
import { readFileSync } from "node:fs";
import jsQR from "jsqr";
import { PNG } from "pngjs";

const CELL = /\x1b\[(\d+);(\d+)m▀/g;
const PIXELS_PER_MODULE = 6;

/**
 * The colours the terminal would paint, module by module: each `▀` paints its upper module in the
 * foreground colour and its lower one in the background colour. 30/40 are black; anything else
 * white. Only explicit colours count: a character without its own colour code fails the test.
 */
export function terminalModules(drawing: string): boolean[][] {
  const rows: boolean[][] = [];
  for (const line of drawing.split("\n").filter((l) => l.includes("▀"))) {
    const cells = [...line.matchAll(CELL)];
    if (cells.length !== (line.match(/▀/g) ?? []).length) throw new Error("a module without its own colours");
    rows.push(cells.map((c) => c[1] === "30"));
    rows.push(cells.map((c) => c[2] === "40"));
  }
  return rows;
}

/** Decodes modules (true = dark) as an image, with nothing around them: the quiet zone must be in the drawing. */
export function decodeModules(modules: boolean[][]): string | null {
  const height = modules.length * PIXELS_PER_MODULE;
  const width = modules[0]!.length * PIXELS_PER_MODULE;
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dark = modules[Math.floor(y / PIXELS_PER_MODULE)]![Math.floor(x / PIXELS_PER_MODULE)];
      rgba.fill(dark ? 0 : 255, (y * width + x) * 4, (y * width + x) * 4 + 3);
      rgba[(y * width + x) * 4 + 3] = 255;
    }
  }
  return jsQR(rgba, width, height, { inversionAttempts: "dontInvert" })?.data ?? null;
}

export function decodeTerminalQr(drawing: string): string | null {
  return decodeModules(terminalModules(drawing));
}

/** Decodes a PNG file or buffer (a --qr-png file, a screenshot). */
export function decodePng(fileOrBuffer: string | Buffer): string | null {
  const png = PNG.sync.read(typeof fileOrBuffer === "string" ? readFileSync(fileOrBuffer) : fileOrBuffer);
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
}
