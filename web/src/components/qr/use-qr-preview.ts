import { useEffect, useRef, useState } from 'preact/hooks';
import { apiBlob } from '../../api/client.js';
import { scanCanvas, svgToCanvas } from './render-qr-image.js';
import type { QrRequest } from './qr-design.js';

/** Waits this long after the last change before asking the API: a preview per pause, not per keystroke. */
export const PREVIEW_DELAY_MS = 400;

/** Whether the rendered code decodes to the link's QR URL. */
export type ScanCheck = { state: 'checking' } | { state: 'read'; text: string | null } | { state: 'failed' };

export interface QrPreview {
  svg?: string;
  /** Object URL of `svg` for an <img>. */
  url?: string;
  request?: QrRequest;
  loading: boolean;
  error: unknown;
  scan?: ScanCheck;
  /** The canvas the scan read, for the PNG download. */
  canvas?: HTMLCanvasElement;
}

/**
 * The API's SVG for the current design, fetched after a pause in editing (an older request in flight
 * is aborted), then drawn at its size and read back with a QR decoder. Nothing is sent while `request`
 * is undefined (a design the API would refuse).
 */
export function useQrPreview(linkId: string, request: QrRequest | undefined, trialToken?: string): QrPreview {
  const [preview, setPreview] = useState<QrPreview>({ loading: false, error: null });
  const key = request ? JSON.stringify(request) : '';
  const shownUrl = useRef<string | undefined>(undefined);

  useEffect(() => {
    if (!request) {
      setPreview((p) => (p.loading ? { ...p, loading: false } : p));
      return undefined;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => void load(abort.signal), PREVIEW_DELAY_MS);
    setPreview((p) => ({ ...p, loading: true, error: null }));
    async function load(signal: AbortSignal) {
      try {
        const blob = await apiBlob('POST', `/links/${encodeURIComponent(linkId)}/qr`, request, { trialToken, signal });
        const svg = await blob.text();
        if (signal.aborted) return;
        const url = URL.createObjectURL(blob);
        if (shownUrl.current) URL.revokeObjectURL(shownUrl.current);
        shownUrl.current = url;
        setPreview({ svg, url, request, loading: false, error: null, scan: { state: 'checking' } });
        await check(svg, request!.size, signal);
      } catch (error) {
        if (signal.aborted) return;
        setPreview((p) => ({ ...p, loading: false, error, scan: p.svg ? p.scan : undefined }));
      }
    }
    async function check(svg: string, size: number, signal: AbortSignal) {
      try {
        const canvas = await svgToCanvas(svg, size);
        const text = await scanCanvas(canvas);
        if (!signal.aborted) setPreview((p) => ({ ...p, canvas, scan: { state: 'read', text } }));
      } catch {
        if (!signal.aborted) setPreview((p) => ({ ...p, scan: { state: 'failed' } }));
      }
    }
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [linkId, key, trialToken]);

  useEffect(() => () => void (shownUrl.current && URL.revokeObjectURL(shownUrl.current)), []);
  return preview;
}
