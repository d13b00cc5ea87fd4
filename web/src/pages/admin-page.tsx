import { api, ApiError } from '../api/client.js';
import { ErrorMessage } from '../ui/form.js';
import { useResource } from '../ui/use-resource.js';
import type { AuditEntry, Report } from './admin/admin-types.js';
import { AuditLog } from './admin/audit-log.js';
import { FindAccount } from './admin/find-account.js';
import { FindLink } from './admin/find-link.js';
import { ReportsQueue } from './admin/reports-queue.js';
import NotFoundPage from './not-found-page.js';
import './admin/console.css';

/**
 * The operator console (CONTRACT.md): the reports queue, finding links and accounts, credits, and the
 * audit log. For anyone but an operator the API answers 404, and so does this page.
 */
export default function AdminPage() {
  const queue = useResource(() => api<{ reports: Report[] }>('GET', '/admin/reports'));
  const audit = useResource(() => api<{ entries: AuditEntry[] }>('GET', '/admin/audit'));
  if (queue.error instanceof ApiError && (queue.error.status === 404 || queue.error.status === 401)) return <NotFoundPage />;
  const changed = async () => {
    await Promise.all([queue.reload(), audit.reload()]);
  };
  return (
    <section>
      <h1 tabIndex={-1}>Operator console</h1>
      <ErrorMessage error={queue.error ?? audit.error} />
      {queue.data && <ReportsQueue reports={queue.data.reports} onChanged={changed} />}
      <FindLink onChanged={changed} />
      <FindAccount onChanged={changed} />
      {audit.data && <AuditLog entries={audit.data.entries} />}
    </section>
  );
}
