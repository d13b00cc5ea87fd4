import { API_LIMITS } from '../../../../src/platform/api-limits.js';

const { logoMaxSide, logoMaxLength } = API_LIMITS.qr;
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export type LogoCheck = { ok: true; dataUrl: string; width: number; height: number } | { ok: false; problem: string };

/**
 * Checks a chosen logo as the API would, before anything is sent: a PNG (by its type and its first
 * bytes), that decodes, at most 512 × 512, and a data URL within the API's length.
 */
export async function checkLogo(file: File): Promise<LogoCheck> {
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  if (file.type !== 'image/png' || !PNG_SIGNATURE.every((byte, i) => head[i] === byte)) {
    return { ok: false, problem: 'The logo must be a PNG image.' };
  }
  let size: { width: number; height: number };
  try {
    const bitmap = await createImageBitmap(file);
    size = { width: bitmap.width, height: bitmap.height };
    bitmap.close();
  } catch {
    return { ok: false, problem: 'This PNG could not be read: the file may be damaged.' };
  }
  if (size.width > logoMaxSide || size.height > logoMaxSide) {
    return {
      ok: false,
      problem: `The logo is ${size.width} × ${size.height} pixels; at most ${logoMaxSide} × ${logoMaxSide} is allowed. Make it smaller and choose it again.`,
    };
  }
  const dataUrl = await readAsDataUrl(file);
  if (dataUrl.length > logoMaxLength) {
    return {
      ok: false,
      problem: `The logo file is too large (${Math.ceil(file.size / 1024)} KB); save it with fewer colours or a smaller size (about 500 KB at most).`,
    };
  }
  return { ok: true, dataUrl, ...size };
}

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsDataURL(file);
  });
}
