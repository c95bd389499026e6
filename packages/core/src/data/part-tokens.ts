import { base64Bytes, type MediaPart, partByteLength, partUrl } from "./content-part.js";

/**
 * The prompt estimate of an image or file part, so that the budget check before each call
 * counts it. An image whose size can be read from its bytes (PNG, JPEG, GIF, WebP) counts the
 * larger of the two providers' published formulas: Anthropic's `width × height / 750` after
 * scaling to fit 1568 px and 1.15 megapixels, and OpenAI's high-detail `85 + 170 × tiles` of
 * 512 px after scaling to fit 2048 px and then 768 px on the short side. Any other image (a URL,
 * an unknown format) counts `IMAGE_TOKENS_UNKNOWN_SIZE`, the most either formula gives. A PDF
 * counts by page, as both providers read one (the text of each page and a picture of it):
 * `PDF_PAGE_TOKENS` a page when its bytes say how many pages it has (`pdfPages`). Any other file,
 * and a PDF whose pages its bytes do not tell, counts as text of its size (a token per 4 bytes);
 * a file by URL counts `FILE_TOKENS_BY_URL`.
 */
export function partTokens(part: MediaPart): number {
  if (part.type === "file") {
    if (partUrl(part) !== null) return FILE_TOKENS_BY_URL;
    const pages = part.mediaType === "application/pdf" ? pdfPages(base64Bytes(part.data as string)) : null;
    return pages === null ? Math.max(1, Math.ceil(partByteLength(part) / 4)) : pages * PDF_PAGE_TOKENS;
  }
  const size = partUrl(part) === null ? imageSize(headOf(part.data as string)) : null;
  if (size === null) return IMAGE_TOKENS_UNKNOWN_SIZE;
  return Math.max(anthropicImageTokens(size.width, size.height), openAiImageTokens(size.width, size.height));
}

/** Tokens an image counts when its size is not known: the most either provider's formula gives (Anthropic's, at 1.15 megapixels). */
export const IMAGE_TOKENS_UNKNOWN_SIZE = 1600;
/** Tokens a file given by URL counts: its size is not known to the harness, which never fetches it. */
export const FILE_TOKENS_BY_URL = 1600;

/**
 * Tokens a PDF page counts: the picture of the page, at the most either image formula gives
 * (`IMAGE_TOKENS_UNKNOWN_SIZE`), and its text, at the 1,500 tokens Anthropic's guide gives as the
 * least a page of text takes (OpenAI, too, shows the model each page's text and a picture of it).
 */
export const PDF_PAGE_TOKENS = IMAGE_TOKENS_UNKNOWN_SIZE + 1500;

/**
 * How many pages a PDF has, read from its bytes without decompressing anything: the page count a
 * linearized PDF gives in its first object (`/Linearized … /N <pages>`), else its page objects
 * (`/Type /Page`, which a later revision of a page adds again: never fewer than the pages). Null
 * when neither is there (the page objects are compressed in object streams, or it is no PDF).
 */
export function pdfPages(bytes: Uint8Array): number | null {
  const head = String.fromCharCode(...bytes.subarray(0, 1024));
  if (!head.startsWith("%PDF-")) return null;
  const linearized = /\/Linearized\b[^>]*?\/N\s+(\d+)/.exec(head);
  if (linearized !== null && Number(linearized[1]) > 0) return Number(linearized[1]);
  const pages = pageObjects(bytes);
  return pages > 0 ? pages : null;
}

const TYPE = [0x2f, 0x54, 0x79, 0x70, 0x65]; // "/Type"
const PAGE = [0x2f, 0x50, 0x61, 0x67, 0x65]; // "/Page"
/** PDF white space: NUL, tab, line feed, form feed, carriage return, space. */
const WHITE = new Set([0, 9, 10, 12, 13, 32]);

/** How many times `/Type /Page` (not `/Pages`) comes in the bytes: a scan from one `/` to the next, with no text made of them. */
function pageObjects(bytes: Uint8Array): number {
  const at = (offset: number, word: readonly number[]) => word.every((byte, index) => bytes[offset + index] === byte);
  let count = 0;
  for (let slash = bytes.indexOf(0x2f); slash >= 0; slash = bytes.indexOf(0x2f, slash + 1)) {
    if (!at(slash, TYPE)) continue;
    let name = slash + TYPE.length;
    while (WHITE.has(bytes[name] as number)) name++;
    if (!at(name, PAGE)) continue;
    const next = bytes[name + PAGE.length];
    if (next === undefined || !isNameByte(next)) count++;
  }
  return count;
}

/** Whether a byte is a letter or a digit: then `/Page` is only the start of a longer name (`/Pages`). */
function isNameByte(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
}

/** Anthropic's estimate: `ceil(width × height / 750)` after scaling to fit 1568 px on the long side and 1.15 megapixels. */
export function anthropicImageTokens(width: number, height: number): number {
  const scale = Math.min(1, 1568 / Math.max(width, height), Math.sqrt(1_150_000 / (width * height)));
  return Math.max(1, Math.ceil((Math.floor(width * scale) * Math.floor(height * scale)) / 750));
}

/** OpenAI's high-detail estimate: scale to fit 2048 × 2048, then to 768 px on the short side; `85 + 170` per 512 px tile. */
export function openAiImageTokens(width: number, height: number): number {
  const fit = Math.min(1, 2048 / Math.max(width, height));
  let w = width * fit;
  let h = height * fit;
  const short = Math.min(1, 768 / Math.min(w, h));
  w = Math.floor(w * short);
  h = Math.floor(h * short);
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** The first bytes of base64 data: enough for any header `imageSize` reads. */
function headOf(base64: string): Uint8Array {
  // 87,380 base64 characters (a multiple of 4) are 65,535 bytes.
  const binary = atob(base64.slice(0, 87_380));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** An image's width and height in pixels, read from a PNG, GIF, WebP or JPEG header; null for anything else. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = (offset: number, text: string) =>
    [...text].every((char, index) => bytes[offset + index] === char.charCodeAt(0));
  const size = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : null);
  if (bytes.length >= 24 && at(1, "PNG") && at(12, "IHDR")) return size(view.getUint32(16), view.getUint32(20));
  if (bytes.length >= 10 && at(0, "GIF8")) return size(view.getUint16(6, true), view.getUint16(8, true));
  if (bytes.length >= 30 && at(0, "RIFF") && at(8, "WEBP")) return webpSize(bytes, view, at);
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSize(bytes, view);
  return null;
}

function webpSize(
  bytes: Uint8Array,
  view: DataView,
  at: (offset: number, text: string) => boolean,
): { width: number; height: number } | null {
  if (at(12, "VP8X")) {
    const width = 1 + (bytes[24] as number) + ((bytes[25] as number) << 8) + ((bytes[26] as number) << 16);
    const height = 1 + (bytes[27] as number) + ((bytes[28] as number) << 8) + ((bytes[29] as number) << 16);
    return { width, height };
  }
  if (at(12, "VP8L")) {
    const bits = view.getUint32(21, true);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (at(12, "VP8 ")) return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  return null;
}

function jpegSize(bytes: Uint8Array, view: DataView): { width: number; height: number } | null {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1] as number;
    // Start-of-frame markers (C0-CF, but not DHT C4, JPG C8 or DAC CC) carry the size.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = view.getUint16(offset + 5);
      const width = view.getUint16(offset + 7);
      return width > 0 && height > 0 ? { width, height } : null;
    }
    offset += 2 + view.getUint16(offset + 2);
  }
  return null;
}
