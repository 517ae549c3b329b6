#!/usr/bin/env bash
# Where a server's CPU goes per request, column beside column: the bench's
# own server process (`tokiwa-benches --serve`), loaded from another process
# as the external rows load it, recorded with `perf record`, and its samples
# sorted into a few buckets (the network stack, the scheduler's wake-ups,
# the driver in the kernel, the runtime in user space, ...).
#
#   benches/tools/profile.sh ROW COLUMN... [-- SECONDS]
#
#   ROW:    echo-c1 | echo-c16 | echo-c256 | echo-c1-16k | echo-c16-16k
#           | echo-c256-16k | paced-30k | redis-c1 | redis-c50 | redis-c50-p16
#           | wrk-c1 | wrk-c64 | wrk-close-c16 | wrk-close-c64
#   COLUMN: tokio | legacy | uring | uring-c
#
# Example: benches/tools/profile.sh echo-c16-16k tokio uring
#
# Each column is one server process, recorded for SECONDS (default 4) after
# a second of warm-up load; CPU per request is the process's user and
# system time over the recorded load, as the bench counts it. The samples
# are `cpu-clock` (a virtual machine has no hardware counters), so time
# spent with interrupts off lands where they are turned back on: the
# bucket "wake-ups (irq restore)" is mostly a wake-up of another thread,
# the client's or a worker's. One run moves by 10-20% on a noisy host:
# read it beside the bench's interleaved rounds, not instead of them.
#
# Below the buckets, the same CPU per request by thread (the workers, the
# legacy driver's poll threads, the main thread that runs the accept
# loop in `block_on`), from /proc, so a poll thread's share is seen apart.
#
# FLAVOUR=current profiles a current-thread runtime (default: multi, two
# workers). TOP=N also lists each column's N heaviest symbols (default 0). BIN= a
# prebuilt tokiwa-benches skips the build. Needs root, or
# kernel.perf_event_paranoid <= 1, for `perf record -p`; installs perf,
# wrk and redis-tools from Debian's packages when missing and run as root.
set -euo pipefail
cd "$(dirname "$0")/../.."

usage() { sed -n '7,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
row=$1; shift
columns=(); secs=4
while [ $# -gt 0 ]; do
  case $1 in --) secs=${2:?}; shift 2;; *) columns+=("$1"); shift;; esac
done

# The rows of the bench's `ext/` table, less churn (its load generator is
# the bench's own, in-process). rate: the paced row's round trips/s;
# per_s: the requests `redis-benchmark` is given per second of load.
rate="" pipeline=1
case $row in
  echo-c1) kind=echo conns=1 msg=64;;
  echo-c16) kind=echo conns=16 msg=64;;
  echo-c256) kind=echo conns=256 msg=64;;
  echo-c1-16k) kind=echo conns=1 msg=16384;;
  echo-c16-16k) kind=echo conns=16 msg=16384;;
  echo-c256-16k) kind=echo conns=256 msg=16384;;
  paced-30k) kind=echo conns=16 msg=64 rate=30000;;
  redis-c1) kind=redis conns=1 per_s=12000;;
  redis-c50) kind=redis conns=50 per_s=60000;;
  redis-c50-p16) kind=redis conns=50 per_s=600000 pipeline=16;;
  wrk-c1) kind=http conns=1;;
  wrk-c64) kind=http conns=64;;
  wrk-close-c16) kind=http conns=16;;
  wrk-close-c64) kind=http conns=64;;
  *) usage;;
esac

need() { # need TOOL PACKAGE
  command -v "$1" >/dev/null && return
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$2" >/dev/null
  fi
  command -v "$1" >/dev/null || { echo "$1 is missing: apt-get install $2" >&2; exit 1; }
}
need perf linux-perf
case $kind in http) need wrk wrk;; redis) need redis-benchmark redis-tools;; esac

if [ -z "${BIN:-}" ]; then
  cargo build -q --release -p tokiwa-benches
  BIN=${CARGO_TARGET_DIR:-target}/release/tokiwa-benches
fi
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
hz=$(getconf CLK_TCK)
flavour=${FLAVOUR:-multi}
case $flavour in multi) flavour_name="multi-thread (2 workers)";; current) flavour_name=current-thread;; *) usage;; esac

wrk_threads=$((conns < 2 ? conns : 2))

# load SECONDS PORT: runs the row's load, prints the requests it made.
load() {
  case $row in
    echo-* | paced-*) "$BIN" --loadgen-echo "127.0.0.1:$2" "$conns" "$msg" 0 $(($1 * 1000)) ${rate:+"$rate"} |
              sed -n 's/.*trips=\([0-9]*\).*/\1/p';;
    # redis-benchmark runs a set count; it is reported only if the run
    # finished (-q prints its rate then).
    redis-*) redis-benchmark -h 127.0.0.1 -p "$2" -c "$conns" -P "$pipeline" -n $(($1 * per_s)) \
               -t get -q 2>&1 | grep -q 'requests per second' && echo $(($1 * per_s));;
    wrk-close-*) wrk -t"$wrk_threads" -c"$conns" -d"$1"s -H "Connection: close" "http://127.0.0.1:$2/" |
                   awk '/requests in/{print $1}';;
    wrk-*) wrk -t"$wrk_threads" -c"$conns" -d"$1"s "http://127.0.0.1:$2/" | awk '/requests in/{print $1}';;
  esac
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# threads PID: a line per thread, "TID NAME TICKS" (the name has no spaces).
threads() {
  for t in /proc/"$1"/task/*; do
    echo "${t##*/} $(tr ' ' _ <"$t/comm") $(awk '{print $14 + $15}' "$t/stat")"
  done 2>/dev/null
}

# The buckets, by symbol (user space by the object it is in).
classify() {
  awk -v n="$1" -v ticks="$2" -v hz="$hz" '
    / \[[k.]\] / {
      p = $1; sub("%", "", p); dso = $2; sym = ""
      for (i = 4; i <= NF; i++) sym = sym " " $i
      sub(/^ /, "", sym)
      if (dso ~ /tokiwa-benches/) {
        b = (sym ~ /tokiwa::|tokio::|crossbeam|std::sys|std::thread|parking/) ? "runtime (user space)" : "application (hyper, server)"
      } else if (dso ~ /libc/) b = "libc (copies, malloc, wrappers)"
      else if (dso ~ /vdso/ || sym ~ /read_tsc|ktime_get|clock/) b = "clock"
      else if (sym ~ /^_*io_|io_uring/) b = "io_uring (kernel)"
      else if (sym ~ /^_*ep_|epoll/) b = "epoll (kernel)"
      else if (sym ~ /_raw_spin_unlock_irqrestore/) b = "wake-ups (irq restore)"
      else if (sym ~ /schedule|switch|wake|ttwu|enqueue|dequeue|pick_|update_curr|load_avg|select_task|_fair|psi_|futex|hrtimer|sched|update_rq|nohz|tick|raw_spin/) b = "scheduler, futex"
      else if (sym ~ /syscall|entry_SYSCALL|fdget|fput|__fget|__x64_sys|x64_sys_call|exit_to_user|irqentry|vfs_|do_writev|do_iter|import_ubuf|rseq|thunk|put_user/) b = "syscall entry"
      else if (sym ~ /tcp|ip_|inet|skb|sock|net|loopback|dev_|bbr|napi|xmit|kmalloc|kmem_cache|kfree|copy|check_object|page|dst_|memcg|alloc|rcu|csum|iov|recv|send|validate|eth|slab|release|lock_sock|bh|sk_|process_backlog|local_deliver|softirq|ipv4|virt_addr_valid|check_stack_object|mod_timer|usecs_to_jiffies/) b = "network stack"
      else b = "other kernel"
      share[b] += p; total += p
    }
    END {
      us = ticks / hz * 1e6 / n
      printf "%s\t%.2f\n", "CPU per request (us)", us
      for (b in share) printf "%s\t%.2f\n", b, share[b] / total * us
    }'
}

for col in "${columns[@]}"; do
  rm -f "$work/in"; mkfifo "$work/in"
  "$BIN" --serve "$kind" "$col" "$flavour" <"$work/in" >"$work/out.$col" &
  spid=$!
  exec 7>"$work/in"
  for _ in $(seq 200); do grep -q PORT "$work/out.$col" && break; sleep 0.05; done
  port=$(sed -n 's/^PORT //p' "$work/out.$col")
  [ -n "$port" ] || { echo "$col: the server printed no port" >&2; exit 1; }
  load 1 "$port" >/dev/null
  t0=$(cpu_ticks "$spid"); threads "$spid" >"$work/thr0.$col"
  perf record -q -e cpu-clock -F 1999 -p "$spid" -o "$work/perf.$col" 2>/dev/null &
  ppid=$!
  requests=$(load "$secs" "$port" || true)
  [ "${requests:-0}" -gt 0 ] || { echo "$col: the load made no requests" >&2; exit 1; }
  kill -INT "$ppid"; wait "$ppid" || true
  t1=$(cpu_ticks "$spid"); threads "$spid" >"$work/thr1.$col"
  exec 7>&-; wait "$spid" || true
  perf report -i "$work/perf.$col" --no-children --sort dso,sym --stdio 2>/dev/null |
    grep -v '^#' | grep '%' >"$work/sym.$col"
  classify "$requests" $((t1 - t0)) <"$work/sym.$col" >"$work/cls.$col"
  # CPU per request by thread name, threads of one name summed.
  join <(sort "$work/thr0.$col") <(sort "$work/thr1.$col") | awk -v n="$requests" -v hz="$hz" \
    '{ t[$2] += $5 - $3 } END { for (k in t) if (t[k] > 0) printf "%s\t%.2f\n", k, t[k] / hz * 1e6 / n }' \
    >"$work/thr.$col"
  echo "$col: $requests requests in $secs s" >&2
done

# table KIND TITLE: a line per key of the KIND files, a column each.
table() {
  printf '\n%s\n' "$2"
  printf '%-34s' "$3"; printf '%10s' "${columns[@]}"; echo
  cut -f1 "$work"/"$1".* | sort -u | grep -v '^CPU per' |
    { [ "$1" = cls ] && echo "CPU per request (us)"; cat; } | while IFS= read -r key; do
      printf '%-34s' "$key"
      for col in "${columns[@]}"; do
        awk -F'\t' -v k="$key" '$1 == k { v = $2 } END { printf "%10s", v == "" ? "-" : v }' "$work/$1.$col"
      done
      echo
    done
}
table cls "$row, $flavour_name: server CPU per request, us" bucket
table thr "$row: the same, by thread (us per request, from /proc)" thread
if [ "${TOP:-0}" -gt 0 ]; then
  for col in "${columns[@]}"; do
    printf '\n%s: heaviest symbols (share of samples)\n' "$col"
    head -n "$TOP" "$work/sym.$col" | awk '{ s = ""; for (i = 4; i <= NF; i++) s = s " " $i; printf "  %7s %s\n", $1, substr(s, 2, 90) }'
  done
fi
