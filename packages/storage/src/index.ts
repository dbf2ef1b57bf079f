export { type FileStorage, FileNotFoundError } from './file-storage';
export { LocalFileStorage } from './local-file-storage';
export { templateFileKey, templatePreviewKey, documentFileKey, bulkZipKey } from './keys';
