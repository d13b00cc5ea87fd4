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
  /** The design `svg` was drawn from. */
  request?: QrRequest;
  /** Whether `svg` is the design the fields hold now: only then do its scan and downloads describe them. */
  current: boolean;
  loading: boolean;
  error: unknown;
  /** The check of `svg`; undefined while `svg` is not current. */
  scan?: ScanCheck;
}

interface Drawn {
  svg?: string;
  url?: string;
  request?: QrRequest;
  key?: string;
  loading: boolean;
  error: unknown;
  scan?: ScanCheck;
}

/**
 * The API's SVG for the current design (`POST /links/{id}/qr/design/preview`, nothing saved), fetched
 * after a pause in editing (an older request in flight is aborted), then drawn and read back with a QR
 * decoder. Nothing is sent while `request` is undefined (a design the API would refuse); the last code
 * is then taken away, so no earlier code and its scan result stand for colours that were refused.
 */
export function useQrPreview(linkId: string, request: QrRequest | undefined, trialToken?: string): QrPreview {
  const [drawn, setDrawn] = useState<Drawn>({ loading: false, error: null });
  const key = request ? JSON.stringify(request) : '';
  const shownUrl = useRef<string | undefined>(undefined);
  const show = (url: string | undefined) => {
    if (shownUrl.current) URL.revokeObjectURL(shownUrl.current);
    shownUrl.current = url;
  };

  useEffect(() => {
    if (!request) {
      show(undefined);
      setDrawn({ loading: false, error: null });
      return undefined;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => void load(abort.signal), PREVIEW_DELAY_MS);
    setDrawn((d) => ({ ...d, loading: true, error: null }));
    async function load(signal: AbortSignal) {
      try {
        const blob = await apiBlob('POST', `/links/${encodeURIComponent(linkId)}/qr/design/preview`, request, { trialToken, signal });
        const svg = await blob.text();
        if (signal.aborted) return;
        const url = URL.createObjectURL(blob);
        show(url);
        setDrawn({ svg, url, request, key, loading: false, error: null, scan: { state: 'checking' } });
        await check(svg, signal);
      } catch (error) {
        if (signal.aborted) return;
        show(undefined);
        setDrawn({ loading: false, error });
      }
    }
    async function check(svg: string, signal: AbortSignal) {
      let scan: ScanCheck;
      try {
        scan = { state: 'read', text: await scanCanvas(await svgToCanvas(svg)) };
      } catch {
        scan = { state: 'failed' };
      }
      if (!signal.aborted) setDrawn((d) => (d.svg === svg ? { ...d, scan } : d));
    }
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [linkId, key, trialToken]);

  useEffect(() => () => show(undefined), []);
  const current = request !== undefined && drawn.key === key && !drawn.loading;
  return {
    svg: drawn.svg,
    url: drawn.url,
    request: drawn.request,
    current,
    loading: drawn.loading,
    error: drawn.error,
    scan: current ? drawn.scan : undefined,
  };
}
