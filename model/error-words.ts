// A failed task's reason in Chinese, one sentence per error code: the server's own messages are
// English, so the operator's center (console/src/i18n.ts) and the e-mails (domain/callbacks/
// email-text.ts) say it in these words. docs/api.md#task-error-codes has the English meanings.
import type { TaskErrorCode } from './errors.js';

export const TASK_ERRORS_ZH: Record<TaskErrorCode, string> = {
  source_unreachable: '多次重试后仍无法连接数据源。',
  source_bad_response: '数据源返回了错误或无法识别的内容。',
  source_changed: '导出过程中数据源的数据发生了变化。',
  source_host_not_allowed: '该数据源已不在项目允许的地址列表中。',
  render_failed: '数据中有值与其所在列的类型不符。',
  storage_failed: '文件存储失败。',
  template_invalid: '数据源提供的模板无效。',
  chart_column_unknown: '图表引用了表格中不存在的列。',
  export_too_large: '数据行数超过了导出上限。',
  destination_auth_failed: '投递目标（存储桶或 SFTP 服务器）拒绝了凭据。',
  destination_bucket_missing: '目标存储桶或 SFTP 目录不存在。',
  destination_permission_denied: '无权写入目标存储桶或 SFTP 目录。',
  destination_host_not_allowed: '该投递目标已不在项目允许的地址列表中。',
  destination_not_found: '投递目标已被删除。',
  destination_unreachable: '多次重试后仍无法连接投递目标（存储桶或 SFTP 服务器）。',
  destination_host_key_mismatch: 'SFTP 服务器的主机密钥与登记的指纹不符。',
  internal_error: '服务内部出错。',
  too_many_parts: '按所设的单个文件行数或大小，导出的文件数超过了上限。',
};
