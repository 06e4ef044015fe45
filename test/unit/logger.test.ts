// platform/logger.ts: JSON lines when stdout is a pipe, pretty lines only when it is a terminal
// (a pseudo-terminal from util-linux `script`), at LOG_LEVEL.
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { projectRoot } from '../../platform/paths.js';

const program = (level: string) =>
  `const { configureLogging, log } = await import('./platform/logger.ts'); configureLogging('${level}'); ` +
  `log.debug('hidden'); log.info({ task_id: 'tsk_1', api_key: 'dck_notreallyakey0000' }, 'hello'); log.warn('careful');`;
const node = (level: string) => [process.execPath, '--import', 'tsx', '--input-type=module', '-e', program(level)];

it('writes one JSON object per line on a pipe, at the level asked for', () => {
  const [bin, ...args] = node('info');
  const out = execFileSync(bin!, args, { cwd: projectRoot, encoding: 'utf8' });
  const lines = out.trim().split('\n').map((l) => JSON.parse(l));
  expect(lines.map((l) => [l.level, l.msg])).toEqual([['info', 'hello'], ['warn', 'careful']]);
  expect(lines[0]).toMatchObject({ task_id: 'tsk_1', api_key: '[Redacted]', time: expect.any(String) });
  const warnOnly = execFileSync(bin!, node('warn').slice(1), { cwd: projectRoot, encoding: 'utf8' });
  expect(warnOnly.trim().split('\n').map((l) => JSON.parse(l).msg)).toEqual(['careful']);
});

it('prints pretty lines on a terminal', () => {
  const command = node('info').map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const out = execFileSync('script', ['-qec', command, '/dev/null'], { cwd: projectRoot, encoding: 'utf8' });
  expect(out).toMatch(/INFO.*hello/);
  expect(out).toContain('tsk_1');
  expect(out).not.toContain('dck_notreallyakey0000');
  expect(out.trim().startsWith('{')).toBe(false);
});
