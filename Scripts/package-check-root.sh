#!/usr/bin/env bash
# Runs inside the clean Debian 12 root that Scripts/package-check.sh makes: an operator's session
# with CardFlow's .debs (in /debs/current, and /debs/next: the same with a "+test1" version).
# Installs them with apt, uses cardctl and cardd against the simulator, upgrades, removes and
# purges, and checks what is left after each. Any failure ends it with a non-zero status.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
say() { echo "package-check: $*" >&2; }
fail() {
  echo "package-check: FAILED: $*" >&2
  exit 1
}
expect() { # expect PATTERN TEXT: grep -E PATTERN in TEXT, or fail with both
  grep -qE -- "$1" <<<"$2" || fail "expected /$1/ in: $2"
}
# Every path of the root but the ones apt, dpkg, logs and caches change anyway (and this check's own).
snapshot() {
  find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /debs \
    -o -path /check -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg -o -path /var/log \
    -o -path /var/tmp \) -prune -o -print | sort
}
version=$(cat /debs/version)

mkdir -p /check
snapshot >/check/before
if command -v swift >/dev/null || ls /usr/lib/swift* /opt/swift >/dev/null 2>&1; then
  fail "this root has Swift; the check is that the packages need none"
fi

# Without Recommends, so the dependencies apt adds are exactly what autoremove takes back below
# (a recommended dbus stays, recommended in turn by the root's systemd).
say "apt-get install ./cardflow-tools ./cardd ($version)"
apt-get update -qq
apt-get install -y -qq --no-install-recommends /debs/current/cardflow-tools_*.deb /debs/current/cardd_*.deb >/check/install.log 2>&1 \
  || { cat /check/install.log >&2; fail "apt-get install"; }
for binary in /usr/bin/cardctl /usr/bin/cardd /usr/bin/vpcdtool; do
  ! ldd "$binary" | grep -iE 'swift|foundation|not found' || fail "$binary needs a library the root lacks"
done

say "cardctl as a user"
expect "^$version\$" "$(cardctl --version)"
expect "^$version\$" "$(cardd --version)"
vpcdtool --help >/dev/null
help=$(cardctl --help)
expect 'desfire' "$help"
expect 'bench' "$help"
expect '"hardwareVersion"|hardware' "$(cardctl --reader sim:desfire desfire version --json)"
state=$(mktemp -d)
cardctl --reader "sim:desfire,state=$state/desfire.json" desfire provision --aid 010203 --file 1 --size 64 \
  --comm enc --key 00112233445566778899AABBCCDDEEFF --text "CARDFLOW PACKAGE CHECK" --json >"$state/provision.json"
expect '"ok" *: *true' "$(cat "$state/provision.json")"
expect 'CARDFLOW PACKAGE CHECK' "$(cardctl --reader "sim:desfire,state=$state/desfire.json" desfire read --aid 010203 \
  --file 1 --key 00112233445566778899AABBCCDDEEFF)"
expect 'p99' "$(cardctl --reader sim:iso7816 bench latency --count 300 --min-duration 0.5 --no-progress)"

say "man pages and completions"
for page in cardctl cardd vpcdtool; do
  rendered=$(MANWIDTH=250 man --nh --nj -P cat "$page" 2>/check/man.err) || fail "man $page: $(cat /check/man.err)"
  [ ! -s /check/man.err ] || fail "man $page warns: $(cat /check/man.err)"
  # Every option and subcommand --help lists is in the manual page: both come from one definition.
  for word in $("$page" --help | grep -oE '^  [a-z][a-z0-9-]+|--[a-z][a-z0-9-]+' | tr -d ' ' | sort -u); do
    [ "$word" = "--help" ] || grep -qF -- "$word" <<<"$rendered" || fail "man $page lacks $word from $page --help"
  done
done
for completion in /usr/share/bash-completion/completions/cardctl /usr/share/zsh/vendor-completions/_cardctl \
  /usr/share/fish/vendor_completions.d/cardctl.fish; do
  grep -q desfire "$completion" || fail "$completion does not complete cardctl's commands"
done
bash -n /usr/share/bash-completion/completions/cardctl

say "the cardd unit, user and folders"
systemd-analyze verify /lib/systemd/system/cardd.service
getent passwd cardd >/dev/null || fail "no cardd user"
expect 'plugdev' "$(id -Gn cardd)"
expect '^cardd plugdev 700$' "$(stat -c '%U %G %a' /var/lib/cardd)"
expect 'GROUP="plugdev"' "$(cat /lib/udev/rules.d/60-cardflow-readers.rules)"
expect '^/etc/cardd/cardd.json' "$(dpkg-query -W -f='${Conffiles}\n' cardd | sed 's/^ //')"
[ "$(systemctl is-enabled cardd.service 2>/dev/null || true)" = "disabled" ] \
  || fail "cardd.service should be installed, not enabled (is-enabled: $(systemctl is-enabled cardd.service 2>&1 || true))"

# The unit's ExecStart, as its User and with its RuntimeDirectory (no systemd runs in a chroot),
# with the packaged configuration, against simulated readers. The configuration's rules: NDEF
# writes on Type 4 tags, block reads on ISO 15693 tags, a report on anything else (its TON and
# relay rules need key material and a server, so those kinds stay out).
# setpriv execs cardd itself, so $! below is cardd's pid (runuser, or a shell function sent to
# the background, would stay between and take the SIGTERM meant for cardd).
service=(setpriv --reuid=cardd --regid=plugdev --init-groups
  /usr/bin/cardd --config /etc/cardd/cardd.json --log-format json --simulate)
runtime_directory() { install -d -o cardd -g plugdev -m 0700 /run/cardd; }
say "cardd with the packaged configuration: 6 simulated cards"
runtime_directory
"${service[@]}" --kinds ndef4,iso15693,iso7816 --arrivals 6 --dwell 400 --gap 200 --quiet 2>/check/cardd.log \
  || { cat /check/cardd.log >&2; fail "cardd --simulate"; }
# jobs_answer: start cardd (one reader, one card that stays), ask its control socket for the
# readers and the job log, stop it with SIGTERM as systemd would.
jobs_answer() {
  runtime_directory
  "${service[@]}" --readers 1 --kinds iso7816 --dwell 60000 --quiet 2>>/check/cardd.log &
  local pid=$!
  for _ in $(seq 100); do [ -S /run/cardd/cardd.sock ] && break; sleep 0.1; done
  cardctl --socket /run/cardd/cardd.sock list >/check/list.txt
  cardctl --socket /run/cardd/cardd.sock jobs --limit 100 >/check/jobs.txt
  kill -TERM "$pid"
  wait "$pid" || fail "cardd did not stop cleanly on SIGTERM"
  grep -q sim /check/list.txt || fail "the control socket listed no reader: $(cat /check/list.txt)"
  cat /check/jobs.txt
}
jobs=$(jobs_answer)
for flow in ndef-write iso15693-read report; do
  expect "succeeded sim:[0-9]+ $flow" "$jobs"
done
! grep -qE ' (failed|interrupted) ' <<<"$jobs" || fail "a job failed: $jobs"
succeeded=$(grep -cE '^[0-9]+ succeeded ' <<<"$jobs")
[ "$succeeded" -ge 6 ] || fail "6 cards, $succeeded jobs succeeded: $jobs"

say "upgrade to $version+test1 keeps the configuration and the job log"
sed -i 's/"cooldownMilliseconds": 200/"cooldownMilliseconds": 250/' /etc/cardd/cardd.json
expect '"cooldownMilliseconds": 250' "$(cat /etc/cardd/cardd.json)"
job_log_sum=$(md5sum /var/lib/cardd/jobs.sqlite)
apt-get install -y -qq --no-install-recommends /debs/next/cardflow-tools_*.deb /debs/next/cardd_*.deb >/check/upgrade.log 2>&1 \
  || { cat /check/upgrade.log >&2; fail "apt-get install (upgrade)"; }
expect "^$version\+test1\$" "$(dpkg-query -W -f='${Version}' cardd)"
expect '"cooldownMilliseconds": 250' "$(cat /etc/cardd/cardd.json)"
[ "$(md5sum /var/lib/cardd/jobs.sqlite)" = "$job_log_sum" ] || fail "the upgrade changed the job log"
after=$(jobs_answer)
for id in $(grep -oE '^[0-9]+ succeeded' <<<"$jobs" | cut -d' ' -f1); do
  grep -qE "^$id succeeded" <<<"$after" || fail "job $id is gone after the upgrade: $after"
done

say "remove keeps the configuration and the state; purge takes them"
apt-get remove -y -qq cardd cardflow-tools >/check/remove.log 2>&1 || { cat /check/remove.log >&2; fail "apt-get remove"; }
[ ! -e /usr/bin/cardd ] && [ ! -e /usr/bin/cardctl ] || fail "remove left the programs"
[ -f /etc/cardd/cardd.json ] && [ -f /var/lib/cardd/jobs.sqlite ] || fail "remove took the configuration or the job log"
apt-get purge -y -qq cardd cardflow-tools >/check/purge.log 2>&1 || { cat /check/purge.log >&2; fail "apt-get purge"; }
apt-get autoremove --purge -y -qq >>/check/purge.log 2>&1 || { cat /check/purge.log >&2; fail "apt-get autoremove"; }
# The cardd user and its passwd/group/shadow backups stay by design (postrm says why).
getent passwd cardd >/dev/null || fail "purge was to keep the cardd user"
rm -rf "$state"
snapshot >/check/after
left=$(comm -13 /check/before /check/after | grep -vxE '/etc/(passwd|group|shadow|gshadow)-' || true)
gone=$(comm -23 /check/before /check/after)
[ -z "$left" ] || fail "purge left: $left"
[ -z "$gone" ] || fail "purge removed what was there before: $gone"
say "all operator checks passed"
