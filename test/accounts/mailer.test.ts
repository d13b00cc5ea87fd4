import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { createMailer } from '../../src/accounts/mailer.js';
import { mailDir, mails } from '../helpers/accounts.js';

const mail = { to: 'ada@example.test', subject: 'Confirm your email address', text: `Open this link:\n\nhttp://sho.rt/app/verify?token=${'A'.repeat(43)}\n` };

test('with MAIL_DIR each mail is written as an .eml file that reads back whole', async () => {
  const folder = mailDir();
  try {
    const mailer = createMailer({ smtpUrl: undefined, mailDir: folder.dir, from: 'no-reply@sho.rt' }, { info: () => assert.fail('nothing is logged') });
    await mailer.send(mail);
    await mailer.send({ ...mail, to: 'grace@example.test' });
    mailer.close();
    const written = mails(folder.dir);
    assert.deepEqual(
      written.map((m) => m.to),
      ['ada@example.test', 'grace@example.test'],
    );
    assert.equal(written[0]!.subject, mail.subject);
    assert.equal(written[0]!.text.trim(), mail.text.trim());
    assert.deepEqual(
      fs.readdirSync(folder.dir).filter((name) => !name.endsWith('.eml')),
      [],
      'no partial files are left',
    );
  } finally {
    folder.remove();
  }
});

test('without SMTP_URL or MAIL_DIR the mail, link included, goes to the log at info', async () => {
  const logged: object[] = [];
  const mailer = createMailer({ smtpUrl: undefined, mailDir: undefined, from: 'no-reply@sho.rt' }, { info: (object) => logged.push(object) });
  await mailer.send(mail);
  assert.deepEqual(logged, [{ to: mail.to, subject: mail.subject, text: mail.text }]);
});
