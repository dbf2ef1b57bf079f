import type { RequestHandler } from 'express';
import multer from 'multer';
import { HttpError } from '../errors';

const FORM_FIELDS_BYTES = 64 * 1024;

/**
 * Reads a multipart body with one file in `file` into memory, within the upload limit.
 * Everything that goes wrong is a `{"detail": ...}` error with the contract's status.
 */
export function singleFileUpload(maxBytes: number, what = 'the template'): RequestHandler {
  const parse = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: FORM_FIELDS_BYTES, parts: 12 },
  }).single('file');

  return (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      throw new HttpError('unsupported_media_type', `Send ${what} as multipart/form-data with the file in a field named "file"`);
    }
    if (Number(req.get('content-length') ?? 0) > maxBytes + FORM_FIELDS_BYTES) {
      throw new HttpError('body_too_large', 'Request body too large');
    }
    parse(req, res, (error: unknown) => {
      if (!error) return next();
      if (error instanceof multer.MulterError) {
        if (error.code === 'LIMIT_FILE_SIZE') return next(new HttpError('body_too_large', 'Request body too large'));
        if (error.code === 'LIMIT_UNEXPECTED_FILE') {
          return next(
            new HttpError('validation_failed', `Unexpected file field "${error.field}"; send ${what} in the field "file"`, {
              errors: [{ path: error.field ?? 'file', message: 'unexpected file field' }],
            }),
          );
        }
        return next(new HttpError('validation_failed', `The multipart body was refused: ${error.message}`));
      }
      next(new HttpError('bad_request', 'The multipart body could not be read'));
    });
  };
}
