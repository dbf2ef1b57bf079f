// node scripts/stall-guard.cjs COMMAND ARGS...: runs a test command with its output copied
// through. When the command has written nothing for TEST_STALL_SECONDS (default 600; the
// slowest test file here prints within two minutes), the guard prints every process with its
// age, CPU time and memory, then kills each jest run under the command, with all it started:
// turbo (--continue) goes on with the next workspace, and the summary counts the killed one as
// failed (it left no results). A hang so costs one workspace and ten minutes, and the log says
// what hung, instead of the whole run reaching CI's time limit with nothing said. Exits with
// the command's status once the command has exited, even if something it left behind still
// holds its output open.
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');

const STUCK_RUN = /(^|\/)pnpm(\.cjs)? run test\b|jest\/bin\/jest\.js/;
/** After the command exits, how long what it left behind may go on writing. */
const DRAIN_MS = 2_000;

function stallSeconds() {
  const value = process.env.TEST_STALL_SECONDS ?? '600';
  if (!/^[1-9][0-9]*$/.test(value)) {
    process.stderr.write(`stall-guard: TEST_STALL_SECONDS must be a whole number of seconds, not "${value}"\n`);
    process.exit(2);
  }
  return Number(value);
}

/** Every process's parent and command line, read from /proc at one go. */
function processTable() {
  const table = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      table.set(Number(name), { ppid, args });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

function descendants(table, pid) {
  const found = [];
  for (const [child, { ppid }] of table) if (ppid === pid) found.push(child, ...descendants(table, child));
  return found;
}

/** The pipes a process holds open, by inode number: the ends it reads and the ends it writes. */
function pipesOf(pid) {
  const reads = new Set();
  const writes = new Set();
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      const match = /^pipe:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`, 'utf8'));
      if (!match) continue;
      const flags = Number.parseInt(/^flags:\s+([0-7]+)/m.exec(fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))[1], 8);
      (flags & 3 ? writes : reads).add(match[1]); // O_WRONLY or O_RDWR: the end that holds a reader waiting
    }
  } catch {
    // gone meanwhile, or not ours to read
  }
  return { reads, writes };
}

/**
 * Processes outside the command writing to a pipe the command reads: what keeps it waiting
 * for an end of output. (Not every shared pipe: a write end a shell passed down to every
 * process, as this machine's job runner does, is read by none of them.)
 */
function pipeHolders(table, commandPid) {
  const inside = new Set([commandPid, ...descendants(table, commandPid)]);
  const commandReads = new Set();
  for (const pid of inside) for (const pipe of pipesOf(pid).reads) commandReads.add(pipe);
  const exempt = new Set();
  for (let pid = process.pid; pid > 1 && !exempt.has(pid); pid = table.get(pid)?.ppid ?? 1) exempt.add(pid);
  const holders = [];
  for (const pid of table.keys()) {
    if (inside.has(pid) || exempt.has(pid)) continue;
    if ([...pipesOf(pid).writes].some((pipe) => commandReads.has(pipe))) holders.push(pid);
  }
  return holders;
}

/** The outermost `pnpm run test` or jest process of each branch under `pid`. */
function stuckRuns(table, pid) {
  const runs = [];
  for (const [child, { ppid, args }] of table) {
    if (ppid !== pid) continue;
    if (STUCK_RUN.test(args)) runs.push(child);
    else runs.push(...stuckRuns(table, child));
  }
  return runs;
}

function reportAndKill(commandPid, limit, midLine) {
  const say = (line) => process.stdout.write(`stall-guard: ${line}\n`);
  if (midLine) process.stdout.write('\n');
  say(`no output for ${limit} s; the processes:`);
  try {
    process.stdout.write(execFileSync('ps', ['--ppid', '2', '-p', '2', '--deselect', '-o', 'pid,ppid,etime,time,rss,args', '--forest']).toString());
  } catch (error) {
    say(`ps failed: ${error.message}`);
  }
  const table = processTable();
  const runs = stuckRuns(table, commandPid);
  if (runs.length === 0) {
    // The command waits on output a process outside it holds open: a server a test started
    // and did not stop, inheriting a task's stderr, keeps turbo waiting for its end forever.
    const holders = pipeHolders(table, commandPid);
    for (const pid of holders) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    if (holders.length > 0)
      say(`killed what held the command's output open from outside it: ${holders.map((pid) => `${pid} ${table.get(pid).args.slice(0, 120)}`).join('; ')}`);
    else say('no jest run under the command to stop; waiting on');
  }
  for (const run of runs) {
    // Stopped first, so nothing in the subtree forks a process the kill would miss.
    const victims = [run, ...descendants(table, run)];
    for (const signal of ['SIGSTOP', 'SIGKILL']) {
      for (const pid of victims) {
        try {
          process.kill(pid, signal);
        } catch {
          // gone already
        }
      }
    }
    say(`killed the stuck run ${table.get(run).args.slice(0, 160)} (pids ${victims.join(' ')})`);
  }
}

const limit = stallSeconds();
const [command, ...args] = process.argv.slice(2);
// Nothing in a test run may wait for an answer: its stdin is empty, not CI's open pipe.
const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
let lastOutput = Date.now();
let midLine = false;
child.stdout.on('data', (chunk) => {
  lastOutput = Date.now();
  midLine = chunk[chunk.length - 1] !== 0x0a;
  process.stdout.write(chunk);
});
child.stderr.on('data', (chunk) => {
  lastOutput = Date.now();
  process.stderr.write(chunk);
});
const watch = setInterval(() => {
  if (Date.now() - lastOutput < limit * 1000) return;
  reportAndKill(child.pid, limit, midLine);
  lastOutput = Date.now();
  midLine = false;
}, 1_000);
child.on('error', (error) => {
  process.stderr.write(`stall-guard: cannot run ${command}: ${error.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  clearInterval(watch);
  process.exitCode = code ?? 128 + (os.constants.signals[signal] ?? 0);
  // What the command left behind may hold its output open: not waited for past DRAIN_MS.
  setTimeout(() => process.exit(), DRAIN_MS).unref();
});
child.on('close', () => process.exit());
