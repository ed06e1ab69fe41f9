#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the guest kernel in QEMU (TCG) and run one job in it.
# Usage: qemu.sh --job test|bench|run|shell [--cmd CMD] [--extra DIR]
#                [--timeout SECS] [--name NAME] [--tap] [--kunit]
#                [--expect-skips "NAME:COUNT:WHAT..."] [--kunit-suites FILE]
#                [--plans "NAME:CASES..."] [--series-msgs FILE]
#                [--console-allow "COUNT:TEXT..."] [--kcsan-ours FILE]
#                (the checks of scripts/check-run.sh)
# Environment: APPEND (more kernel parameters), QEMU_OPTS (more QEMU
# options), V=1 (show the console while it runs), KOUT (the kernel build
# to boot: build/kbuild, or build/kbuild-debug for the debug kernel),
# KARCH=i386 (boot build/kbuild-i386). An i386 kernel (KOUT's .config) boots
# in qemu-system-i386 with 768M (it has no HIGHMEM) and the i386 initramfs.
# Logs: $RESULTS/NAME-serial.log (console), $RESULTS/NAME-results.txt (job).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

job='' cmd='' extra='' name='' timeout_s=600 checks=()
while [ $# -gt 0 ]; do
	case "$1" in
	--job) job=$2; shift ;;
	--cmd) cmd=$2; shift ;;
	--extra) extra=$2; shift ;;
	--timeout) timeout_s=$2; shift ;;
	--name) name=$2; shift ;;
	--tap | --kunit) checks+=("$1") ;;
	--expect-skips | --kunit-suites | --kcsan-ours | --plans | --series-msgs | --console-allow)
		[ $# -ge 2 ] || die "qemu.sh: $1 needs a value (see the comment at the top of scripts/qemu.sh)"
		checks+=("$1" "$2")
		shift
		;;
	*) die "qemu.sh: unknown argument '$1' (see the comment at the top of scripts/qemu.sh)" ;;
	esac
	shift
done
case "$job" in test | bench | run | shell) ;; *) die "qemu.sh: --job must be test, bench, run or shell" ;; esac
name=${name:-$job}

# The kernel's architecture, from its .config, picks QEMU and the initramfs.
arch=$(kout_arch "$KOUT")
arch=${arch:-$KARCH}
if [ "$KARCH" = i386 ] && [ "$arch" != i386 ]; then
	die "KARCH=i386, but KOUT=${KOUT#"$TOP"/} holds an $arch kernel: unset KOUT, or set it to build/kbuild-i386"
fi
# qemu-system-i386's TCG "max" CPU says AMD family 6 model 6, an Athlon
# that an i386 kernel warns is not fit for SMP (WARNING: ... init_amd):
# the same CPU called Intel.
if [ "$arch" = i386 ]; then
	qemu_bin=qemu-system-i386 cpu=max,vendor=GenuineIntel mem=768M
	base=$BUILD/initramfs-i386.cpio sfx=-i386
else
	qemu_bin=qemu-system-x86_64 cpu=max mem=1G base=$BUILD/initramfs.cpio sfx=
fi
need_cmd "$qemu_bin" cpio timeout

kernel=$KOUT/arch/x86/boot/bzImage
kout=${KOUT##*/}
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kernel${kout#kbuild}'"
[ -f "$base" ] || die "no initramfs at $base: run 'make initramfs${sfx}'"
mkdir -p "$RESULTS"
serial=$RESULTS/$name-serial.log
results=$RESULTS/$name-results.txt
rm -f "$serial" "$results"

# The job archive (/job/cmd, /extra/...) is appended to the base initramfs:
# the kernel unpacks concatenated newc archives in order.
jobdir=$(mktemp -d)
trap 'rm -rf "$jobdir"' EXIT
mkdir -p "$jobdir/root/job" "$jobdir/root/extra"
printf '%s\n' "$cmd" >"$jobdir/root/job/cmd"
if [ -n "$extra" ]; then
	[ -d "$extra" ] || die "EXTRA=$extra is not a directory"
	cp -a "$extra/." "$jobdir/root/extra/"
fi
# The test timesource module of the kernel booted (tod_unregister loads it
# from /tests); each kernel build (KOUT) has its own, with its own vermagic.
ko=$KOUT/kernel/timeofday/newtod_test_timesource.ko
if [ -f "$ko" ]; then
	mkdir -p "$jobdir/root/tests"
	install -m 644 "$ko" "$jobdir/root/tests/"
fi
(cd "$jobdir/root" && find . | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --quiet) >"$jobdir/job.cpio"
cat "$base" "$jobdir/job.cpio" >"$jobdir/initrd"

# tsc=reliable: under TCG the clocksource watchdog can declare the TSC
# unstable when the host stalls the guest. TSC_PARAM= drops it (tests of an
# unstable TSC).
append="console=ttyS0 panic=-1 ${TSC_PARAM-tsc=reliable} newtod.job=$job ${APPEND:-}"
qemu=("$qemu_bin" -M pc -cpu "$cpu" -smp 2 -m "$mem" -nographic -no-reboot
	-kernel "$kernel" -initrd "$jobdir/initrd" -append "$append")
# shellcheck disable=SC2206 # QEMU_OPTS is a list of options, split on spaces
qemu+=(${QEMU_OPTS:-})

if [ "$job" = shell ]; then
	echo "newtod: starting a guest shell. Leave with 'exit'; Ctrl-a x kills QEMU." >&2
	"${qemu[@]}" -serial mon:stdio -serial "file:$results"
	exit 0
fi

log "qemu: booting (job=$job, timeout ${timeout_s}s, console log ${serial#"$TOP"/})"
start=$(date +%s)
timed_out=0
qrc=0
# The monitor, watched while the guest runs (scripts/qemu-watch.py): a
# guest in S3 for 60 s with a silent console (its RTC alarm fired before S3
# was entered) is woken and the wake-up recorded in $RESULTS/NAME-s3-wakeups.txt,
# which check-run.sh judges; 10 s before the timeout, the guest's state
# (running: hung or busy; suspended: in S3) and where its CPUs are go into
# $RESULTS/NAME-qemu-status.txt.
mon=$jobdir/monitor.sock
qstatus=$RESULTS/$name-qemu-status.txt
wakes=$RESULTS/$name-s3-wakeups.txt
rm -f "$qstatus" "$wakes"
python3 "$TOP/scripts/qemu-watch.py" "$mon" "$serial" "$((timeout_s > 20 ? timeout_s - 10 : timeout_s / 2))" \
	"$qstatus" "$wakes" 3>&- &
watcher=$!
# LIVE_FD=N (scripts/test.sh): each program's result line, as the guest
# prints it, goes to fd N with its time ("  NAME: ok 3 tod_core (12.3 s)",
# scripts/lib.sh's result_lines), read every 2 s
# and once more when QEMU has exited ($jobdir/ended).
follower=''
if [ -n "${LIVE_FD:-}" ] && [ "$job" = test ] && [ "${V:-0}" != 1 ]; then
	(
		shown=0
		while :; do
			# the last pass: QEMU has exited, or this script has (died)
			[ -e "$jobdir/ended" ] || ! kill -0 "$$" 2>/dev/null && last=1 || last=0
			# whole lines only (QEMU writes the port byte by byte), but
			# all of it at the last pass
			if [ "$last" = 1 ]; then
				lines=$(tr -d '\r' 2>/dev/null <"$results" || true)
			else
				lines=$(head -n "$(wc -l 2>/dev/null <"$results" || echo 0)" 2>/dev/null "$results" | tr -d '\r' || true)
			fi
			lines=$(result_lines 0 <<<"$lines" || true)
			now=$(grep -acE '^(not )?ok [0-9]+ ' <<<"$lines" || true)
			if [ "$now" -gt "$shown" ]; then
				sed -n "$((shown + 1)),${now}p" <<<"$lines" | sed "s/^/  ${name#test-}: /"
				shown=$now
			fi
			[ "$last" = 1 ] && break
			sleep 2 >/dev/null 2>&1
		done
	) >&"$LIVE_FD" &
	follower=$!
fi
if [ "${V:-0}" = 1 ]; then
	timeout -k 5 "$timeout_s" "${qemu[@]}" -monitor "unix:$mon,server=on,wait=off" \
		-serial stdio -serial "file:$results" </dev/null 3>&- | tee "$serial" || qrc=$?
else
	timeout -k 5 "$timeout_s" "${qemu[@]}" -monitor "unix:$mon,server=on,wait=off" \
		-serial "file:$serial" -serial "file:$results" \
		</dev/null 3>&- >"$RESULTS/$name-qemu.log" 2>&1 || qrc=$?
fi
kill "$watcher" 2>/dev/null || true
wait "$watcher" 2>/dev/null || true
if [ -n "$follower" ]; then
	touch "$jobdir/ended"
	wait "$follower" 2>/dev/null || true
fi
[ "$qrc" = 124 ] || [ "$qrc" = 137 ] && timed_out=1
if [ "$timed_out" = 0 ] && [ "$qrc" != 0 ]; then
	cat "$RESULTS/$name-qemu.log" >&2 2>/dev/null || true
	die "QEMU failed (exit $qrc): see the messages above"
fi
log "qemu: guest ran $(($(date +%s) - start)) s"
if [ "$timed_out" = 1 ]; then
	vmstate=$(grep -aom1 'VM status: [a-z -]*([a-z-]*)\|VM status: [a-z-]*' "$qstatus" 2>/dev/null || true)
	case "$vmstate" in
	*suspended*) log "qemu: 10 s before the timeout, $vmstate: the guest was in S3 and no wake event came (its CPUs' registers: ${qstatus#"$TOP"/})" ;;
	"VM status: "*) log "qemu: 10 s before the timeout, $vmstate: the guest was hung or busy (its CPUs' registers: ${qstatus#"$TOP"/})" ;;
	*) log "qemu: 10 s before the timeout, QEMU's monitor did not answer (${qstatus#"$TOP"/})" ;;
	esac
else
	rm -f "$qstatus"
fi

opts=("${checks[@]}")
[ "$timed_out" = 1 ] && opts+=(--timed-out)
nwakes=0
if [ -s "$wakes" ]; then
	nwakes=$(wc -l <"$wakes")
	log "qemu: the guest stayed in S3 with no wake event $nwakes time(s) and was woken (${wakes#"$TOP"/}):"
	sed 's/^/  /' "$wakes" >&2
fi
opts+=(--s3-wakeups "$nwakes")
rc=0
if [ "$job" = run ]; then
	tr -d '\r' <"$results" | grep -av '@@NEWTOD-DONE' || true
	"$TOP/scripts/check-run.sh" "${opts[@]}" "$serial" "$results" >/dev/null || rc=$?
	guest_rc=$(tr -d '\r' <"$results" | grep -aoE '@@NEWTOD-DONE rc=[0-9]+' | tail -1 | sed 's/.*rc=//' || true)
	# Return the command's own exit status when it is known.
	[ -n "$guest_rc" ] && [ "$guest_rc" != 0 ] && exit "$guest_rc"
	exit "$rc"
fi
"$TOP/scripts/check-run.sh" "${opts[@]}" "$serial" "$results" || rc=$?
exit "$rc"
