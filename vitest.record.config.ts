// `npm run record:histories`: records replay fixtures (test/record/histories.record.ts); not part of `npm test`.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({ test: { ...base.test, include: ['test/record/**/*.record.ts'] } });
