import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api/client.js';
import type { Link } from '../../api/types.js';
import { ErrorMessage, Field, Notice, Submit, submitted } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';
import { Conflict } from './conflict.js';
import { editOf, type Edit, type EditableField } from './edit-changes.js';

const OVERRIDES = {
  invalid_request: 'Check the fields: the destination must be a full web address (https://…), the title 100 characters at most, the tags 160.',
  request_conflict: 'Only active or paused links can be edited.',
};

type Values = Record<EditableField, string>;
const valuesOf = (link: Link): Values => ({ target: link.target, title: link.title, tags: link.tags });

/**
 * Edits a link from the version it was read at. A stale version (409 link_changed) fetches the current
 * link and shows what changed, so the person can reapply their edit onto it or drop it.
 */
export function EditForm({ link, onSaved }: { link: Link; onSaved: (link: Link) => void }) {
  const [base, setBase] = useState(link);
  const [values, setValues] = useState(() => valuesOf(link));
  const [conflict, setConflict] = useState<{ current: Link; edit: Edit }>();
  const [saved, setSaved] = useState(false);
  const edit = editOf(base, values);
  const dirty = Object.keys(edit).length > 0;

  // A newer version saved elsewhere on this page (pause, resume) becomes the base; typed values stay.
  useEffect(() => {
    if (link.version <= base.version) return;
    setBase(link);
    if (!dirty) setValues(valuesOf(link));
  }, [link.version]);

  const save = useAction(async (version: number, changes: Edit) => {
    setSaved(false);
    try {
      const updated = await api<Link>('PATCH', `/links/${link.id}`, { version, ...changes });
      setConflict(undefined);
      setBase(updated);
      setValues(valuesOf(updated));
      setSaved(true);
      onSaved(updated);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'link_changed')) throw error;
      const current = await api<Link>('GET', `/links/${link.id}`);
      setConflict({ current, edit: changes });
    }
  });
  const set = (name: EditableField) => (value: string) => {
    setSaved(false);
    setValues((current) => ({ ...current, [name]: value }));
  };
  const discard = () => {
    if (!conflict) return;
    setBase(conflict.current);
    setValues(valuesOf(conflict.current));
    setConflict(undefined);
    onSaved(conflict.current);
  };

  return (
    <form class="form-block" onSubmit={submitted(() => void save.run(base.version, edit))}>
      <Field label="Destination URL" type="url" name="target" required value={values.target} onValue={set('target')} />
      <Field label="Title" name="title" maxLength={100} value={values.title} onValue={set('title')} />
      <Field label="Tags" name="tags" maxLength={160} value={values.tags} onValue={set('tags')} hint="Words to search by, such as poster, spring." />
      {conflict && (
        <Conflict
          base={base}
          current={conflict.current}
          edit={conflict.edit}
          busy={save.busy}
          onReapply={() => void save.run(conflict.current.version, conflict.edit)}
          onDiscard={discard}
        />
      )}
      <ErrorMessage error={save.error} overrides={OVERRIDES} />
      <div role="status">{saved && <Notice kind="success">Saved. The short URL and the QR URL now lead to the new destination.</Notice>}</div>
      {!conflict && <Submit label="Save" busy={save.busy} busyText="Saving…" disabled={!dirty} />}
    </form>
  );
}
