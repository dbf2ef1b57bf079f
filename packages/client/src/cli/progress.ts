/**
 * Progress on stderr: a line redrawn in place on a terminal, plain lines (only when
 * something changed) otherwise, so logs of scripted runs stay readable.
 */
export function createProgress(stream: NodeJS.WriteStream = process.stderr) {
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  const started = Date.now();
  let text = '';
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  const draw = () => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    stream.write(`\r\x1b[2K${frames[frame++ % frames.length]} ${text} (${seconds} s)`);
  };
  const clear = () => {
    if (!stream.isTTY) return;
    if (timer) clearInterval(timer);
    timer = undefined;
    stream.write('\r\x1b[2K');
  };
  return {
    /** The current state; on a terminal it stays on one line, elsewhere each change is a line. */
    update(next: string) {
      if (next === text) return;
      text = next;
      if (!stream.isTTY) {
        stream.write(`${next}\n`);
        return;
      }
      timer ??= setInterval(draw, 100).unref();
      draw();
    },
    /** A line that stays (a retry, a warning), above the redrawn one. */
    note(line: string) {
      if (stream.isTTY && timer) stream.write('\r\x1b[2K');
      stream.write(`${line}\n`);
      if (stream.isTTY && timer) draw();
    },
    done: clear,
  };
}

export type Progress = ReturnType<typeof createProgress>;

/** "[#####.....] 12 of 40 rows" */
export function bar(done: number, total: number, width = 24): string {
  const filled = total > 0 ? Math.round((done / total) * width) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
