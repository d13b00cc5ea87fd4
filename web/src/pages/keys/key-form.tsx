import { useState } from 'preact/hooks';
import { api } from '../../api/client.js';
import { SCOPES, type CreatedKey, type Scope } from '../../api/types.js';
import { ErrorMessage, Field, Submit, submitted } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';

const SCOPE_HELP: Record<Scope, string> = {
  'links:read': 'list and read links, usage and quotes',
  'links:write': 'create links and edit them',
  'analytics:read': 'read visit statistics',
  'qr:read': 'export QR codes',
  'credits:spend': 'spend purchased credits: extra links and capacity packs',
};

const OVERRIDES = { invalid_request: 'Give the key a name (up to 100 characters), at least one scope, and a budget that is a whole number of credits.' };

/** Creating a key: the secret comes back once and is handed to `onCreated`. */
export function KeyForm({ onCreated }: { onCreated: (key: CreatedKey) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ReadonlySet<Scope>>(new Set(['links:read', 'links:write']));
  const [budget, setBudget] = useState('');
  const [problem, setProblem] = useState('');
  const create = useAction(async () => {
    const key = await api<CreatedKey>('POST', '/keys', {
      name: name.trim(),
      scopes: SCOPES.filter((s) => scopes.has(s)),
      budget: budget.trim() === '' ? null : Number(budget),
    });
    setName('');
    setBudget('');
    onCreated(key);
  });
  const submit = () => {
    const message =
      scopes.size === 0
        ? 'Choose at least one scope.'
        : budget.trim() !== '' && !/^\d+$/.test(budget.trim())
          ? 'The monthly budget is a whole number of credits, or empty for no limit.'
          : '';
    setProblem(message);
    if (!message) void create.run();
  };
  const toggle = (scope: Scope, on: boolean) => setScopes((old) => new Set(SCOPES.filter((s) => (s === scope ? on : old.has(s)))));
  return (
    <form class="form-block" onSubmit={submitted(submit)} aria-labelledby="create-key-heading">
      <h2 id="create-key-heading">Create a key</h2>
      <Field
        label="Name"
        name="name"
        required
        maxLength={100}
        value={name}
        onValue={setName}
        hint="Says where the key is used, for example “newsletter script”."
      />
      <fieldset>
        <legend>Scopes</legend>
        {SCOPES.map((scope) => (
          <div class="check" key={scope}>
            <input
              type="checkbox"
              id={`scope-${scope}`}
              checked={scopes.has(scope)}
              onChange={(e) => toggle(scope, e.currentTarget.checked)}
              aria-describedby={`scope-${scope}-help`}
            />
            <label for={`scope-${scope}`}>{scope}</label>
            <span class="hint" id={`scope-${scope}-help`}>
              {SCOPE_HELP[scope]}
            </span>
          </div>
        ))}
      </fieldset>
      <Field
        label="Monthly budget"
        name="budget"
        inputMode="numeric"
        pattern="[0-9]*"
        value={budget}
        onValue={setBudget}
        hint="Most credits the key may spend per month. Leave empty for no limit beyond your balance."
      />
      <div role="alert" class="alert-region">
        {problem && <p class="notice error">{problem}</p>}
      </div>
      <ErrorMessage error={create.error} overrides={OVERRIDES} />
      <Submit label="Create key" busy={create.busy} busyText="Creating the key…" />
    </form>
  );
}
