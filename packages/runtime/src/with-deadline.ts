/** `promise`, or nothing once `ms` have passed: for closes that have no deadline of their own (BullMQ's worker.close()). */
export const withDeadline = (promise: Promise<unknown>, ms: number) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
