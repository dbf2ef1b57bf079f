import path from 'node:path';
import { packagesLoadedAfter } from '@docgen/testing';

const SDK = ['@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@aws-sdk/s3-request-presigner'];
/** Which parts of the AWS SDK a fresh Node process has loaded after `script` ran on the built package (as the services load it). */
const sdkLoadedAfter = (script: string): string[] => packagesLoadedAfter(path.join(__dirname, '..', 'dist', 'index.js'), script, SDK);

describe('the AWS SDK is loaded on first use', () => {
  it('not by loading the package or making local storage, as every service does at start with STORAGE_DRIVER=local', () => {
    expect(sdkLoadedAfter('lib.createStorage({ STORAGE_DRIVER: "local", STORAGE_DIR: "/tmp/docgen-sdk-test" });')).toEqual([]);
  });

  it('by the first S3 storage made', () => {
    expect(
      sdkLoadedAfter(
        'lib.createStorage({ STORAGE_DRIVER: "s3", S3_BUCKET: "b", S3_ENDPOINT: "http://127.0.0.1:9", S3_REGION: "", S3_FORCE_PATH_STYLE: true, S3_PREFIX: "" });',
      ),
    ).toEqual(SDK);
  });
});
