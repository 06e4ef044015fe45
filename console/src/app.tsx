// The console's frame: sign-in, the language, and the pages (tasks, schedules, destinations, usage).
// The page is chosen by the location's hash (#/schedules, #/destinations, #/usage), which never holds anything secret.
import { useEffect, useState } from 'preact/hooks';
import { session } from './api.js';
import { defaultLang, I18n, type Lang, words } from './i18n.js';
import { SignIn } from './sign-in.js';
import { TasksPage } from './tasks.js';
import { SchedulesPage } from './schedules.js';
import { UsagePage } from './usage.js';
import { DestinationsPage } from './destinations.js';

// #/schedules/<schedule_id> (a schedule alert's link) opens the schedules page at that schedule.
const PAGES = { '#/usage': 'usage', '#/destinations': 'destinations' } as const;
const pageOf = () => (location.hash === '#/schedules' || location.hash.startsWith('#/schedules/') ? 'schedules' : (PAGES[location.hash as keyof typeof PAGES] ?? 'tasks'));

export function App() {
  const [lang, setLang] = useState<Lang>(defaultLang);
  const [key, setKey] = useState(session.key);
  const [page, setPage] = useState(pageOf);
  const w = words[lang];

  useEffect(() => {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = w.title;
  }, [lang]);
  useEffect(() => {
    const onHash = () => setPage(pageOf());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  const choose = (l: Lang) => {
    localStorage.setItem('dc.lang', l);
    setLang(l);
  };
  const signOut = () => {
    session.clear();
    setKey(null);
  };

  return (
    <I18n.Provider value={w}>
      <header class="top">
        <h1>{w.title}</h1>
        {key && (
          <nav aria-label={w.title}>
            <a href="#/" aria-current={page === 'tasks' ? 'page' : undefined}>{w.tasks}</a>
            <a href="#/schedules" aria-current={page === 'schedules' ? 'page' : undefined}>{w.schedules}</a>
            <a href="#/destinations" aria-current={page === 'destinations' ? 'page' : undefined}>{w.destinations}</a>
            <a href="#/usage" aria-current={page === 'usage' ? 'page' : undefined}>{w.usage}</a>
          </nav>
        )}
        <div class="top-tools">
          <div class="lang" role="group" aria-label={w.language}>
            <button type="button" aria-pressed={lang === 'zh'} onClick={() => choose('zh')} lang="zh-CN">中文</button>
            <button type="button" aria-pressed={lang === 'en'} onClick={() => choose('en')} lang="en">English</button>
          </div>
          {key && <button type="button" class="ghost" onClick={signOut}>{w.signOut}</button>}
        </div>
      </header>
      <main>
        {!key ? <SignIn onSignedIn={(k) => setKey(k)} /> : page === 'schedules' ? <SchedulesPage /> : page === 'usage' ? <UsagePage /> : page === 'destinations' ? <DestinationsPage /> : <TasksPage apiKey={key} onUnauthorized={signOut} />}
      </main>
    </I18n.Provider>
  );
}
