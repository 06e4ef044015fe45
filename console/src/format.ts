// Numbers and times as people read them, in the console's language.
import type { Lang } from './i18n.js';

const locale = (lang: Lang) => (lang === 'zh' ? 'zh-CN' : 'en-GB');

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function count(n: number, lang: Lang): string {
  return n.toLocaleString(locale(lang));
}

/** Hours, minutes and seconds: `1m 30s`, `1分30秒`. */
const UNITS = { en: ['h ', 'm ', 's'], zh: ['小时', '分', '秒'] } as const;

export function duration(seconds: number, lang: Lang = 'en'): string {
  const s = Math.max(0, Math.round(seconds));
  const [h, m, sec] = UNITS[lang];
  if (s < 60) return `${s}${sec}`;
  if (s < 3600) return `${Math.floor(s / 60)}${m}${s % 60}${sec}`;
  return `${Math.floor(s / 3600)}${h}${Math.floor((s % 3600) / 60)}${m.trimEnd()}`;
}

export function dateTime(iso: string, lang: Lang): string {
  return new Date(iso).toLocaleString(locale(lang), { dateStyle: 'short', timeStyle: 'short' });
}
