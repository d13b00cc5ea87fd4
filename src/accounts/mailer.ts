import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Where outgoing mail goes: an SMTP server, a folder of .eml files, or the log. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

export interface MailLog {
  info(object: object, message: string): void;
}

export interface MailSettings {
  smtpUrl: string | undefined;
  mailDir: string | undefined;
  /** The From address; defaults to no-reply at PUBLIC_URL's host. */
  from: string;
}

/**
 * SMTP_URL when set; else MAIL_DIR, one .eml file per mail (a mail client opens it, a test reads it);
 * else the log, at info, so that an operator without mail can still pass a link on. The log is the
 * only place a mail's text is ever logged.
 */
export function createMailer(settings: MailSettings, log: MailLog): Mailer {
  if (settings.smtpUrl !== undefined) {
    const transport = nodemailer.createTransport(settings.smtpUrl);
    return {
      send: async (mail) => void (await transport.sendMail({ from: settings.from, ...mail })),
      close: () => transport.close(),
    };
  }
  if (settings.mailDir !== undefined) return directoryMailer(settings.mailDir, settings.from);
  return {
    send: async (mail) => log.info({ to: mail.to, subject: mail.subject, text: mail.text }, 'mail (no SMTP_URL or MAIL_DIR set)'),
    close: () => {},
  };
}

function directoryMailer(dir: string, from: string): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await transport.sendMail({ from, ...mail });
      await fs.mkdir(dir, { recursive: true });
      // Time first, so a folder listing is in sending order; the random part keeps names unique.
      const name = `${Date.now()}-${crypto.randomBytes(6).toString('hex')}.eml`;
      // Written under a temporary name and renamed, so a reader never sees half a mail.
      const partial = path.join(dir, `.${name}.tmp`);
      await fs.writeFile(partial, info.message as Buffer, { mode: 0o600 });
      await fs.rename(partial, path.join(dir, name));
    },
    close: () => transport.close(),
  };
}
