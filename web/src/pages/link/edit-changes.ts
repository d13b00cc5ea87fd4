import type { Link } from '../../api/types.js';

export type EditableField = 'target' | 'title' | 'tags';
export type Edit = Partial<Record<EditableField, string>>;

export const FIELD_LABELS: Record<EditableField | 'status', string> = {
  target: 'Destination URL',
  title: 'Title',
  tags: 'Tags',
  status: 'Status',
};

export const EDITABLE: EditableField[] = ['target', 'title', 'tags'];

/** The fields the person changed from the version they started from: only those are sent. */
export function editOf(base: Link, values: Record<EditableField, string>): Edit {
  const edit: Edit = {};
  for (const field of EDITABLE) if (values[field].trim() !== base[field]) edit[field] = values[field].trim();
  return edit;
}

export interface Difference {
  field: EditableField | 'status';
  before: string;
  now: string;
}

/** What someone else changed between the version an edit started from and the current one. */
export function differences(base: Link, current: Link): Difference[] {
  return ([...EDITABLE, 'status'] as const)
    .filter((field) => base[field] !== current[field])
    .map((field) => ({ field, before: base[field], now: current[field] }));
}
