export { convertOnce, type ConvertOptions } from './convert-once';
export { WarmConverterPool, type WarmPoolOptions, type PoolConvertOptions, type ConvertPartsOptions, type PoolEvent, type OutputFormat } from './warm-pool';
export { ConversionFailedError, ConversionTimeoutError, ConverterCrashedError, ConverterUnavailableError } from './errors';
export { convertPerCall } from './per-call-driver';
export { pdfFilterData, type PdfStandard, type FilterData } from './pdf-standard';
export { PERFORMANCE_SETTINGS, type ProfileTuning } from './performance-profile';
