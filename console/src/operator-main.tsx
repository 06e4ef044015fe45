// The operator's center (GET /operator, docs/console.md#the-operators-center). The server says which
// step this document is in a <meta name="dc-step"> (api/routes/operator-page.ts):
//  - boot: the token is taken out of the fragment at once (history.replaceState), kept in this
//    tab's sessionStorage, and posted back to /operator in a form body, whose answer carries the
//    frame-ancestors of the token's project. Nothing is shown.
//  - center: the operator's tasks, with the token read back from sessionStorage.
//  - ended: the token was not accepted.
import { render } from 'preact';
import { session } from './api.js';
import { words } from './i18n.js';
import { Ended, OperatorCenter, type SessionInfo } from './operator-center.js';
import './style.css';

session.storeAs('dc.operator');
const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="dc-${name}"]`)?.content ?? '';
const step = meta('step');
const lang = meta('locale').startsWith('zh') || (!meta('locale') && navigator.language.toLowerCase().startsWith('zh')) ? 'zh' : 'en';
const root = document.getElementById('app')!;
document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
document.title = words[lang].title;

if (step === 'boot') {
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) {
    session.set(fromHash);
    history.replaceState(null, '', location.pathname);
  }
  const token = session.key();
  if (!token) render(<Ended lang={lang} />, root);
  else {
    const form = document.createElement('form');
    form.method = 'post';
    form.action = '/operator';
    const field = document.createElement('input');
    field.type = 'hidden';
    field.name = 'token';
    field.value = token;
    form.append(field);
    document.body.append(form);
    form.submit();
  }
} else if (step === 'center' && session.key()) {
  const info: SessionInfo = { operatorId: meta('operator'), permissions: meta('permissions').split(' '), expiresAt: meta('expires') };
  render(<OperatorCenter lang={lang} token={session.key()!} info={info} />, root);
} else {
  session.clear();
  render(<Ended lang={lang} />, root);
}
