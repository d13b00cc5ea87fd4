import { useId, useState } from 'preact/hooks';
import { MIN_CONTRAST } from '../../../../src/qr/colors.js';
import { API_LIMITS } from '../../../../src/platform/api-limits.js';
import { checkLogo } from './logo-check.js';
import { colourProblem, CORNER_STYLES, DOT_STYLES, designContrast, PRESET_NAMES, PRESETS, type PresetName, type QrDesign } from './qr-design.js';

const { minSize, maxSize, logoMaxSide } = API_LIMITS.qr;
const title = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** A part of the designer: the design shown, and where its changes go. */
export interface ControlsProps {
  design: QrDesign;
  onDesign: (change: Partial<QrDesign>) => void;
}

/** The designer's fields; each change goes to the preview, which waits for a pause before asking the API. */
export function QrControls({ design, onDesign }: ControlsProps) {
  const id = useId();
  return (
    <div class="qr-controls">
      <div class="field">
        <label for={`${id}-preset`}>Preset</label>
        <select id={`${id}-preset`} value={design.preset} onChange={(e) => choosePreset(e.currentTarget.value as PresetName, onDesign)}>
          {PRESET_NAMES.map((name) => (
            <option value={name}>{title(name)}</option>
          ))}
        </select>
      </div>
      <ColourField label="Foreground" value={design.foreground} onValue={(foreground) => onDesign({ foreground })} />
      <ColourField label="Background" value={design.background} onValue={(background) => onDesign({ background })} />
      <Contrast design={design} />
      <div class="qr-pair">
        <Choice label="Dot style" value={design.dots} options={DOT_STYLES} onValue={(dots) => onDesign({ dots })} />
        <Choice label="Corner style" value={design.corners} options={CORNER_STYLES} onValue={(corners) => onDesign({ corners })} />
      </div>
      <div class="field">
        <label for={`${id}-size`}>Size (pixels)</label>
        <input
          id={`${id}-size`}
          type="text"
          inputMode="numeric"
          value={design.size}
          onInput={(e) => onDesign({ size: e.currentTarget.value })}
          aria-describedby={`${id}-size-hint`}
        />
        <p class="hint" id={`${id}-size-hint`}>
          {minSize} to {maxSize}: the width of the SVG. The PNG and the PDF take the print size below.
        </p>
      </div>
      <LogoField logo={design.logoPng} onLogo={(logoPng) => onDesign({ logoPng })} />
    </div>
  );
}

function choosePreset(preset: PresetName, onDesign: ControlsProps['onDesign']): void {
  onDesign({ preset, ...PRESETS[preset] });
}

function ColourField({ label, value, onValue }: { label: string; value: string; onValue: (value: string) => void }) {
  const id = useId();
  const valid = /^#[0-9a-fA-F]{6}$/.test(value);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <div class="qr-colour">
        <input
          type="color"
          aria-label={`Pick the ${label.toLowerCase()} colour`}
          value={valid ? value.toLowerCase() : '#000000'}
          onInput={(e) => onValue(e.currentTarget.value)}
        />
        <input
          id={id}
          type="text"
          class="mono"
          spellcheck={false}
          autoComplete="off"
          maxLength={7}
          value={value}
          onInput={(e) => onValue(e.currentTarget.value.trim())}
        />
      </div>
    </div>
  );
}

/** The WCAG contrast of the two colours, live, with why a low one is refused: before any request. */
function Contrast({ design }: { design: QrDesign }) {
  const ratio = designContrast(design);
  const problem = colourProblem(design);
  const enough = ratio !== undefined && ratio >= MIN_CONTRAST;
  return (
    <div class="qr-contrast">
      <p>
        Contrast <strong class="mono">{ratio === undefined ? '–' : `${(Math.floor(ratio * 100) / 100).toFixed(2)}:1`}</strong>{' '}
        <span class={enough ? 'qr-ok' : 'qr-bad'}>{enough ? `(at least ${MIN_CONTRAST}:1 ✓)` : `(needs at least ${MIN_CONTRAST}:1)`}</span>
      </p>
      <div role="status">{problem && <p class="notice warning">{problem}</p>}</div>
    </div>
  );
}

function Choice<T extends string>({ label, value, options, onValue }: { label: string; value: T; options: readonly T[]; onValue: (value: T) => void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onValue(e.currentTarget.value as T)}>
        {options.map((name) => (
          <option value={name}>{title(name)}</option>
        ))}
      </select>
    </div>
  );
}

/** A PNG logo, checked here for its type and size before it is sent as a data URL. */
function LogoField({ logo, onLogo }: { logo?: string; onLogo: (logo: string | undefined) => void }) {
  const id = useId();
  const [problem, setProblem] = useState<string>();
  const [name, setName] = useState<string>();
  const choose = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    const checked = await checkLogo(file);
    input.value = '';
    if (!checked.ok) return setProblem(checked.problem);
    setProblem(undefined);
    setName(`${file.name}, ${checked.width} × ${checked.height} pixels`);
    onLogo(checked.dataUrl);
  };
  return (
    <div class="field">
      <label for={id}>
        Logo (PNG, at most {logoMaxSide} × {logoMaxSide} pixels)
      </label>
      <input id={id} type="file" accept="image/png" onChange={(e) => void choose(e.currentTarget)} aria-describedby={`${id}-hint`} />
      <p class="hint" id={`${id}-hint`}>
        Placed in the centre. With a logo the code always uses the highest error correction (level H, which restores 30% of it), and the logo takes at most a
        quarter of the code’s width (about 6% of its area), so the code scans around it. Saved with the design when you save it.
      </p>
      <div role="status">
        {problem && <p class="notice warning">{problem}</p>}
        {logo && !problem && (
          <p class="inline">
            <span>Logo: {name ?? 'the one saved with the design'}</span>
            <button type="button" class="secondary" onClick={() => onLogo(undefined)}>
              Remove logo
            </button>
          </p>
        )}
      </div>
    </div>
  );
}
