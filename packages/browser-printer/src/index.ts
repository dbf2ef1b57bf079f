export { BrowserPrinterPool, CHROMIUM_ARGS, type BrowserPoolOptions, type PrintOptions, type PrintRequest, type PrinterEvent } from './browser-pool';
export { PrintTimeoutError, PrinterUnavailableError } from './errors';
