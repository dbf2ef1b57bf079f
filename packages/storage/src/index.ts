export { type FileStorage, FileNotFoundError } from './file-storage';
export { LocalFileStorage } from './local-file-storage';
export { templateFileKey, documentFileKey, bulkZipKey } from './keys';
