// A writer in a process of its own, so its memory is measured apart from the test's S3
// server, and so it can be killed mid-upload. Built code: run after `turbo run build`.
// argv: <storage config JSON> <key> <MiB to write> <"finish" | "hang">
// stdout: "uploading" once 3 parts' worth has been read; then, on finish, the result JSON.
/* global require, process, setInterval, Buffer -- linted with src/, but run by node directly as CommonJS */
/* eslint-disable @typescript-eslint/no-require-imports */
const { randomBytes } = require('node:crypto');
const { Readable } = require('node:stream');
const { createStorage } = require('../../dist/index.js');

const [config, key, mib, mode] = [JSON.parse(process.argv[2]), process.argv[3], Number(process.argv[4]), process.argv[5]];
const storage = createStorage(config);
let peak = 0;
setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 2).unref();
const MiB = 1024 * 1024;
const chunk = randomBytes(MiB); // the same MiB again and again: the writer's own memory stays at one chunk
let sent = 0;
const source = new Readable({
  read() {
    if (sent === 24) process.stdout.write('uploading\n');
    if (sent >= 24 && mode === 'hang') return; // never ends: the test kills this process mid-upload
    if (sent++ < mib) this.push(Buffer.from(chunk));
    else this.push(null);
  },
});
const baseline = process.memoryUsage().arrayBuffers;
storage.putStream(key, source).then((bytes) => {
  process.stdout.write(JSON.stringify({ bytes, peakArrayBuffers: peak - baseline }) + '\n');
  process.exit(0);
});
