export { convertOnce, ConversionError, type ConvertOptions } from './convert-once';
