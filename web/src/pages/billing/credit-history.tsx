import type { CreditEntry, KeySummary } from '../../api/types.js';
import { formatDateTime, formatNumber } from '../../ui/format.js';
import { budgetText, keyHint } from '../keys/key-list.js';

const REASONS: Record<CreditEntry['reason'], string> = {
  grant: 'Credits added by the operator',
  link: 'Link past the free links',
  pack: 'Capacity pack',
  refund: 'Capacity pack refunded',
};

export function CreditHistory({ history }: { history: CreditEntry[] }) {
  if (history.length === 0) return <p>No credits yet.</p>;
  return (
    <table class="cards">
      <caption class="visually-hidden">Credit history, newest first</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">What</th>
          <th scope="col" class="number">
            Credits
          </th>
        </tr>
      </thead>
      <tbody>
        {history.map((entry, i) => (
          <tr key={i}>
            <td data-label="When">{formatDateTime(entry.at)}</td>
            <td data-label="What">{REASONS[entry.reason] ?? entry.reason}</td>
            <td data-label="Credits" class="number">
              {entry.credits > 0 ? `+${formatNumber(entry.credits)}` : `−${formatNumber(-entry.credits)}`}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function KeyBudgets({ keys }: { keys: KeySummary[] }) {
  if (keys.length === 0)
    return (
      <p>
        No API keys. <a href="/app/keys">Create one</a> for your programs.
      </p>
    );
  return (
    <table class="cards">
      <caption class="visually-hidden">Monthly budgets of your API keys</caption>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Monthly budget</th>
          <th scope="col">Spent this month</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => (
          <tr key={key.id}>
            <th scope="row" data-label="Key">
              {key.name || 'Unnamed key'} <span class="mono">({keyHint(key)})</span>
            </th>
            <td data-label="Monthly budget">{budgetText(key.budget)}</td>
            <td data-label="Spent this month">{formatNumber(key.spentThisMonth)} credits</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
