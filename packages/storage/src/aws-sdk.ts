/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, synchronously (below) */
import type * as ClientS3 from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';
import type * as Presigner from '@aws-sdk/s3-request-presigner';

export interface AwsSdk {
  s3: typeof ClientS3;
  Upload: typeof LibStorage.Upload;
  getSignedUrl: typeof Presigner.getSignedUrl;
}

let sdk: AwsSdk | undefined;

/**
 * The AWS SDK's S3 client, multipart upload and presigner, loaded when the first
 * S3FileStorage is made, not when a service starts: a gateway or render worker that stores
 * its files locally (STORAGE_DRIVER=local, `npm start`) no longer pays about 15 MB and 0.1 s
 * for it (docs/BENCHMARKS.md). `require`, not `import()`: a constructor is synchronous.
 */
export const awsSdk = (): AwsSdk =>
  (sdk ??= {
    s3: require('@aws-sdk/client-s3') as typeof ClientS3,
    Upload: (require('@aws-sdk/lib-storage') as typeof LibStorage).Upload,
    getSignedUrl: (require('@aws-sdk/s3-request-presigner') as typeof Presigner).getSignedUrl,
  });
