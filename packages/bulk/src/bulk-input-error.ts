import { DomainError } from '@docgen/contracts';

/** Why a spreadsheet is refused; the gateway's error table gives the status. */
export type BulkInputErrorCode = 'spreadsheet_invalid' | 'body_too_large';

/** The spreadsheet cannot become a bulk job; nothing is queued. The problem is always the uploaded file. */
export class BulkInputError extends DomainError<BulkInputErrorCode> {
  constructor(code: BulkInputErrorCode, message: string) {
    super(code, message, [{ path: 'file', message }]);
  }
}
