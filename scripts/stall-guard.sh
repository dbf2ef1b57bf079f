#!/usr/bin/env bash
# stall-guard.sh COMMAND...: runs a test command, copying its output (stdout and stderr) through.
# When the command has printed nothing for TEST_STALL_SECONDS (default 600; the slowest test
# file prints within two minutes here), it prints every process with its age and CPU, then
# kills the jest run under way, with all it started, and goes on: turbo (--continue) moves to
# the next workspace, the killed one has no results and counts as failed. A hang so costs one
# workspace and ten minutes, and the log says what hung, instead of the whole run reaching
# CI's time limit with nothing said. Exits with the command's status.
set -u
limit=${TEST_STALL_SECONDS:-600}

descendants() {
  local child
  for child in $(pgrep -P "$1"); do
    echo "$child"
    descendants "$child"
  done
}

# The outermost `pnpm run test` or jest process of each branch under $1, where the run is stuck.
stuck_runs() {
  local child
  for child in $(pgrep -P "$1"); do
    if grep -qaE 'pnpm.run.test|jest/bin/jest\.js' "/proc/$child/cmdline" 2>/dev/null; then
      echo "$child"
    else
      stuck_runs "$child"
    fi
  done
}

# Nothing in a test run may wait for an answer: stdin is empty, not CI's open pipe.
exec {output}< <(exec "$@" 2>&1 </dev/null)
command_pid=$!

while :; do
  IFS= read -r -t "$limit" -u "$output" line
  status=$?
  if [ "$status" -eq 0 ]; then
    printf '%s\n' "$line"
    continue
  fi
  [ "$status" -gt 128 ] || break # end of output (a last line without a newline is printed below)
  [ -n "$line" ] && printf '%s\n' "$line" # what the run had written of a line when it went silent
  echo "stall-guard: no output for ${limit} s; the processes:"
  ps --ppid 2 -p 2 --deselect -o pid,ppid,etime,time,rss,args --forest | cut -c1-220
  for run in $(stuck_runs "$command_pid"); do
    victims="$(descendants "$run") $run"
    echo "stall-guard: killing the stuck run $(tr '\0' ' ' <"/proc/$run/cmdline" 2>/dev/null | cut -c1-120) (pids $victims)"
    kill -KILL $victims 2>/dev/null
  done
done
[ -n "${line:-}" ] && printf '%s' "$line"
wait "$command_pid"
