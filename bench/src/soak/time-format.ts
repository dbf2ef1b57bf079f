import { fixed } from '../stats';

/** A length of time as minutes (seconds under two minutes). */
export const span = (seconds: number) => (seconds < 120 ? `${fixed(seconds, 0)} s` : `${fixed(seconds / 60, seconds < 600 ? 1 : 0)} min`);

/** A moment of the run, in seconds from its start, as m:ss. */
export const minuteSecond = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;
