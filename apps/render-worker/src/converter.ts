import { convertPerCall, WarmConverterPool, type PoolEvent } from '@docgen/converter';
import type { Logger } from '@docgen/observability';
import type { RenderWorkerConfig } from './config';

export interface DocxToPdf {
  toPdf: (docx: Buffer) => Promise<Buffer>;
  liveInstances: () => number;
  close: () => Promise<void>;
}

/** The warm pool (default) or the per-call libreoffice-convert driver, chosen by CONVERTER_DRIVER. */
export async function startConverter(config: RenderWorkerConfig, logger: Logger, onPoolEvent?: (event: PoolEvent) => void): Promise<DocxToPdf> {
  if (config.CONVERTER_DRIVER === 'per-call') {
    return {
      toPdf: (docx) => convertPerCall(docx, 'pdf', config.RENDER_TIMEOUT_MS),
      liveInstances: () => 0,
      close: async () => undefined,
    };
  }
  const pool = new WarmConverterPool({
    size: config.CONVERTER_POOL_SIZE,
    timeoutMs: config.RENDER_TIMEOUT_MS,
    recycleAfter: config.CONVERTER_RECYCLE_AFTER,
    onEvent: (event) => {
      logger[event.type === 'exited' && !event.expected ? 'warn' : 'info']({ ...event }, `converter ${event.type}`);
      onPoolEvent?.(event);
    },
  });
  await pool.start();
  return { toPdf: (docx) => pool.convert(docx, 'docx', 'pdf'), liveInstances: () => pool.liveCount, close: () => pool.close() };
}
