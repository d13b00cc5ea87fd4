import { formatDateTime } from '../../ui/format.js';
import type { AuditEntry } from './admin-types.js';

const ACTIONS: Record<string, string> = {
  'link.suspend': 'Suspended a link',
  'link.restore': 'Restored a link',
  'report.dismiss': 'Dismissed a report',
  'credits.grant': 'Granted credits',
  'blocklist.add': 'Blocked a domain',
  'blocklist.remove': 'Unblocked a domain',
  'trials.suspend': 'Suspended a network’s trial links',
  'account.make-operator': 'Made an operator',
};

const detailText = (details: Record<string, unknown>) =>
  Object.entries(details)
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join(', ');

/** Who did what, when: every operator action, from this console and from the command line. */
export function AuditLog({ entries }: { entries: AuditEntry[] }) {
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit log</h2>
      {entries.length === 0 ? (
        <p>No operator actions yet.</p>
      ) : (
        <table class="cards">
          <caption class="visually-hidden">Operator actions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">On</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry, i) => (
              <tr key={i}>
                <td data-label="When">{formatDateTime(entry.at)}</td>
                <td data-label="Who">{entry.actor === 'cli' ? 'Command line' : entry.actor}</td>
                <th scope="row" data-label="What">
                  {ACTIONS[entry.action] ?? entry.action}
                </th>
                <td data-label="On" class="mono wrap-anywhere">
                  {entry.subject}
                </td>
                <td data-label="Details">{detailText(entry.details)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
