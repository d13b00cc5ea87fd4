import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { CreatedKey, KeySummary } from '../api/types.js';
import { Busy, ErrorMessage } from '../ui/form.js';
import { useResource } from '../ui/use-resource.js';
import { KeyForm } from './keys/key-form.js';
import { KeyList } from './keys/key-list.js';
import { NewKey } from './keys/new-key.js';

export default function KeysPage() {
  const keys = useResource(() => api<{ keys: KeySummary[] }>('GET', '/keys'));
  const [created, setCreated] = useState<CreatedKey>();
  return (
    <section>
      <h1 tabIndex={-1}>API keys</h1>
      <p>
        Programs call the API with a key. Give each program its own key with only the scopes it needs, and a monthly budget if it may spend credits. The{' '}
        <a href="/app/api">API reference</a> describes every endpoint.
      </p>
      {created && <NewKey created={created} onDone={() => setCreated(undefined)} />}
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Your keys</h2>
        <Busy busy={keys.loading && keys.data === undefined} text="Loading your keys…" />
        <ErrorMessage error={keys.error} />
        {keys.data && <KeyList keys={keys.data.keys} onRevoked={keys.reload} />}
      </section>
      <KeyForm
        onCreated={(key) => {
          setCreated(key);
          void keys.reload();
        }}
      />
    </section>
  );
}
