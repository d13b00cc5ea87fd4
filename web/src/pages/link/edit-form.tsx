import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../../api/client.js';
import type { Link } from '../../api/types.js';
import { ErrorMessage, Field, Notice, Submit, submitted } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';
import { dropDraft, keepDraft, savedDraft } from '../../ui/drafts.js';
import { DESTINATION_REFUSED, withScheme } from '../../ui/url.js';
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
  const draftName = `link:${link.id}`;
  const [base, setBase] = useState(link);
  // An edit kept when the session ended (or the tab reloaded) comes back; the version check still guards it.
  const [restored] = useState(() => savedDraft<Values>(draftName));
  const [values, setValues] = useState(() => restored ?? valuesOf(link));
  const [conflict, setConflict] = useState<{ current: Link; edit: Edit }>();
  const [saved, setSaved] = useState(false);
  const [refused, setRefused] = useState<string>();
  const edit = editOf(base, values);
  const dirty = Object.keys(edit).length > 0;

  useEffect(() => {
    if (dirty) keepDraft(draftName, values);
    else dropDraft(draftName);
  }, [dirty, values]);

  // A newer version saved elsewhere on this page (pause, resume) becomes the base; typed values stay.
  // During a conflict the base stays the version the edit was made on, while the page shows the current one.
  useEffect(() => {
    if (conflict || link.version <= base.version) return;
    setBase(link);
    if (!dirty) setValues(valuesOf(link));
  }, [link.version]);

  const save = useAction(async (version: number, changes: Edit) => {
    setSaved(false);
    setRefused(undefined);
    try {
      const updated = await api<Link>('PATCH', `/links/${link.id}`, { version, ...changes });
      setConflict(undefined);
      setBase(updated);
      setValues(valuesOf(updated));
      setSaved(true);
      onSaved(updated);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_request' && 'target' in changes) return setRefused(changes.target);
      if (!(error instanceof ApiError && error.code === 'link_changed')) throw error;
      const current = await api<Link>('GET', `/links/${link.id}`);
      setConflict({ current, edit: changes });
      // The summary at the top of the page shows the link as it is now, not as it was read.
      onSaved(current);
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
  };

  return (
    <form class="form-block" onSubmit={submitted(() => void save.run(base.version, edit))}>
      {restored && dirty && <Notice kind="info">Your unsaved edit from before you signed in again is back. Check it, then save it.</Notice>}
      <Field
        label="Destination URL"
        type="text"
        inputMode="url"
        name="target"
        required
        value={values.target}
        onValue={set('target')}
        onBlur={() => set('target')(withScheme(values.target))}
        error={refused !== undefined && refused === values.target ? DESTINATION_REFUSED : undefined}
      />
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
