// A project's schedule alerts (alert_emails, alert_callback; docs/schedules.md#when-a-schedule-keeps-failing)
// against its own lists, as a task's notify_email and callback are: each address at one of
// email_domains, the URL's host on callback_hosts. Checked when either is set (a 422 naming the
// field) and again before every delivery, since the lists may change afterwards.
import { emailDomainAllowed } from '../callbacks/email-message.js';
import { DomainError } from '../errors.js';
import { checkOutgoingUrl } from '../source/hosts.js';

interface AlertSettings {
  alert_emails?: string[] | undefined;
  alert_callback?: string | null | undefined;
}

interface AlertLists {
  email_domains: readonly string[];
  callback_hosts: readonly string[];
}

export function checkAlertSettings(s: AlertSettings, lists: AlertLists): void {
  s.alert_emails?.forEach((address, i) => {
    if (emailDomainAllowed(lists.email_domains, address)) return;
    const message = `alert_emails.${i} is at a domain that is not on the project's email_domains`;
    throw DomainError.invalid(`alert_emails.${i}`, message, message, 'email_domain_not_allowed');
  });
  if (!s.alert_callback) return;
  const check = checkOutgoingUrl(s.alert_callback, lists.callback_hosts);
  if (check.ok) return;
  const why =
    check.reason === 'invalid'
      ? 'is not an http(s) URL without credentials'
      : check.reason === 'blocked'
        ? 'points at a refused address (cloud metadata or link-local)'
        : "has a host that is not on the project's callback_hosts";
  const message = `alert_callback ${why}`;
  throw DomainError.invalid('alert_callback', message, message, check.reason === 'invalid' ? undefined : 'callback_host_not_allowed');
}
