// A task's stored options are parsed where the row is read (model/task-options.ts): what fits is
// kept as written, what no longer fits is dropped so its default applies, never a failed read.
import { describe, expect, it } from 'vitest';
import { parseTaskOptions } from '../../model/task-options.js';

describe('parseTaskOptions', () => {
  it('keeps every option a submission writes, and drops keys it does not know', () => {
    const written = {
      title: 'Orders',
      template: { ceil: [{ name: 'id' }] },
      sheets: [{ source_url: 'https://s.example/a', name: 'A', header: [['x']] }],
      max_file_rows: 1000,
      destination_id: 'dst_1',
      destination_path: '{{task_id}}/{{file_name}}',
      notify_email: ['ops@example.com'],
      locale: 'zh-CN',
      compression: 'gzip',
      csv_bom: false,
      csv_delimiter: '\t',
      csv_line_ending: 'lf',
      autofilter: false,
      time_zone: 'Asia/Shanghai',
    };
    expect(parseTaskOptions({ ...written, retired_option: 1 })).toEqual(written);
  });

  it('drops only the values that no longer fit', () => {
    expect(parseTaskOptions({ locale: 'fr', notify_email: 'a@example.com', csv_bom: 'no', title: 'kept' })).toEqual({ title: 'kept' });
    expect(parseTaskOptions({ csv_delimiter: ':', csv_line_ending: 'cr', autofilter: 'yes', time_zone: 8, csv_bom: true })).toEqual({ csv_bom: true });
  });

  it('reads anything that is not an object as no options', () => {
    for (const json of [null, 'text', 7, []]) expect(parseTaskOptions(json)).toEqual({});
  });
});
