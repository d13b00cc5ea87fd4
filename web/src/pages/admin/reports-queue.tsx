import { api } from '../../api/client.js';
import { formatDateTime } from '../../ui/format.js';
import { ErrorMessage } from '../../ui/form.js';
import { useAction } from '../../ui/use-action.js';
import type { Report } from './admin-types.js';

/** Open reports, oldest first: each with the link it names, and what the operator can do about it. */
export function ReportsQueue({ reports, onChanged }: { reports: Report[]; onChanged: () => Promise<void> }) {
  const act = useAction(async (report: Report, action: 'suspend' | 'dismiss') => {
    await api('POST', `/admin/reports/${encodeURIComponent(report.id)}/${action}`, {});
    await onChanged();
  });
  return (
    <section aria-labelledby="reports-heading">
      <h2 id="reports-heading">Reports</h2>
      <ErrorMessage error={act.error} overrides={{ request_conflict: 'This report was closed already. The list is up to date again.' }} />
      {reports.length === 0 && <p>No open reports.</p>}
      {reports.length > 0 && (
        <table class="cards">
          <caption class="visually-hidden">Open reports, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Reported link</th>
              <th scope="col">Goes to</th>
              <th scope="col">What is wrong</th>
              <th scope="col">Received</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {reports.map((report) => (
              <tr key={report.id}>
                <th scope="row" id={`report-${report.id}`} data-label="Reported link" class="wrap-anywhere">
                  {report.link?.shortUrl ?? report.url}
                  {report.link && report.link.status !== 'active' && <span class="badge">{report.link.status}</span>}
                </th>
                <td data-label="Goes to" class="wrap-anywhere">
                  {report.link?.target ?? 'unknown'}
                </td>
                <td data-label="What is wrong">{report.reason}</td>
                <td data-label="Received">{formatDateTime(report.createdAt)}</td>
                <td class="row-actions">
                  <button
                    type="button"
                    class="danger"
                    disabled={act.busy}
                    aria-describedby={`report-${report.id}`}
                    onClick={() => void act.run(report, 'suspend')}
                  >
                    Suspend link
                  </button>
                  <button
                    type="button"
                    class="secondary"
                    disabled={act.busy}
                    aria-describedby={`report-${report.id}`}
                    onClick={() => void act.run(report, 'dismiss')}
                  >
                    Dismiss
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
