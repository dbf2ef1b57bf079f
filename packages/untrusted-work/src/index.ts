export { UntrustedWork, UntrustedWorkBusyError, type UntrustedWorkOptions } from './untrusted-work';
