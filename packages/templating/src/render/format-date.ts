// Dates are formatted by the expression language's own formatter, so `{due}` and `{due | date:"…"}` agree.
export { formatDate, parseIsoDate } from '@docgen/expressions';
