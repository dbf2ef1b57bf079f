export { type FileStorage, type DownloadUrlOptions, FileNotFoundError } from './file-storage';
export { LocalFileStorage } from './local-file-storage';
export { S3FileStorage, type S3StorageOptions } from './s3-file-storage';
export { storageEnv, createStorage, describeStorage, type StorageConfig } from './config';
export {
  templateFileKey,
  templateHtmlKey,
  templatePreviewKey,
  templateFilesPrefix,
  templateBaselinesPrefix,
  templateVersionFileKey,
  templateVersionPreviewKey,
  documentFileKey,
  documentFilesPrefix,
  documentFileGeneration,
  bulkZipKey,
  renderingBaselinePrefix,
} from './keys';
