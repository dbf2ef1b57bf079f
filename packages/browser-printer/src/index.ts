export {
  BrowserPrinterPool,
  CHROMIUM_ARGS,
  defaultChromiumPath,
  type BrowserPoolOptions,
  type PrintOptions,
  type PrintRequest,
  type PrinterEvent,
} from './browser-pool';
export { PrintTimeoutError, PrinterUnavailableError } from './errors';
