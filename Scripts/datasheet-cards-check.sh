#!/usr/bin/env bash
# Every `cardctl classic|ntag|felica` command (and `ndef read|write`) against storage cards and
# readers written from the NXP and Sony datasheets and the PC/SC part 3 / ACS / Identiv manuals
# (Scripts/partners/datasheet-cards.py, nothing taken from CardFlow's client or simulator), served
# over the vpcd protocol: MIFARE Classic 1K behind a generic part 3, an ACS and an Identiv reader;
# NTAG215 behind the same three; FeliCa Lite-S behind a generic part 3 and an
# ACS reader. Prints one line per check and the pass count per card and reader (issue 35).
#
# Usage: Scripts/datasheet-cards-check.sh [--log DIR]   (needs a debug build of cardctl)
# Exit status: 0 every check passed, 1 one failed, 2 setup failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export PATH="/opt/swift/usr/bin:$PATH"
cardctl="$root/.build/debug/cardctl"
partner="$root/Scripts/partners/datasheet-cards.py"
logs=$(mktemp -d)
[[ "${1:-}" == "--log" ]] && { logs="$2"; mkdir -p "$logs"; }
[[ -x "$cardctl" ]] || swift build --package-path "$root" --product cardctl >&2 || exit 2
command -v python3 >/dev/null || { echo "datasheet-cards-check: python3 missing" >&2; exit 2; }

port=37100
pid=
passed=0
failed=0
summary=()
group_passed=0
group_total=0

start() { # card reader
    stop
    port=$((port + 1))
    python3 "$partner" --port "$port" --card "$1" --reader "$2" --log "$logs/$1-$2.log" 2>>"$logs/partner.log" &
    pid=$!
    group="$1 behind $2"
    group_passed=0
    group_total=0
}
stop() {
    [[ -n "$pid" ]] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
    pid=
    [[ -n "${group:-}" ]] && summary+=("$(printf '%-32s %2d/%d' "$group" "$group_passed" "$group_total")")
    group=
}
# check NAME STATUS PATTERN -- ARGS...: cardctl ARGS on the partner exits STATUS and its
# output (stdout and stderr) matches the extended regular expression PATTERN.
check() {
    local name="$1" status="$2" pattern="$3"
    shift 4
    local output code
    output=$(timeout 60 "$cardctl" --reader "vpcd:$port" "$@" 2>&1)
    code=$?
    group_total=$((group_total + 1))
    if [[ $code -eq $status ]] && grep -Eq -- "$pattern" <<<"$output"; then
        passed=$((passed + 1))
        group_passed=$((group_passed + 1))
        echo "ok: $group: $name"
    else
        failed=$((failed + 1))
        echo "FAIL: $group: $name (exit $code, expected $status, pattern '$pattern'): cardctl $*" >&2
        sed 's/^/    /' <<<"$output" >&2
    fi
}

classic_checks() { # variant
    local v=(--variant "$1")
    check "info names the card" 0 "MIFARE Classic 1K, UID 04A1B2C3, 16 sectors" -- classic info "${v[@]}"
    check "write a data block" 0 "" -- classic write "${v[@]}" --block 4 --data 00112233445566778899AABBCCDDEEFF
    check "read it back" 0 "block +4 +00 11 22 33 44 55 66 77 88 99 AA BB CC DD EE FF" -- classic read "${v[@]}" --block 4
    check "block 0 is refused by the plain write" 2 "" -- classic write "${v[@]}" --block 0 --data 00000000000000000000000000000000
    check "dump: 16 sectors, transport trailers" 0 "FF 07 80 69 FF FF FF FF FF FF" -- classic dump "${v[@]}"
    check "a wrong key is an authentication failure" 1 "authentication of block 4 with key A failed" -- \
        classic read "${v[@]}" --block 4 --key 000000000000
    check "value: set" 0 "block 9: value 100" -- classic value "${v[@]}" --block 9 --set 100
    check "value: add" 0 "block 9: value 150" -- classic value "${v[@]}" --block 9 --add 50
    check "value: subtract" 0 "block 9: value 120" -- classic value "${v[@]}" --block 9 --subtract 30
    check "value: copy to another block" 0 "block 10: value 120" -- classic value "${v[@]}" --block 9 --copy-to 10
    check "value: read" 0 "block 10: value 120" -- classic value "${v[@]}" --block 10
    check "value: not a value block" 1 "" -- classic value "${v[@]}" --block 4 --add 1
    # Sector 2: block 8 a purse (C1C2C3 110: decrement with key A or B, increment and write with
    # key B only), the trailer C1C2C3 011 (key B writes everything).
    check "trailer: new keys and access bits" 0 "C1C2C3 110" -- classic trailer "${v[@]}" --sector 2 --write \
        --new-key-a A2A2A2A2A2A2 --new-key-b B2B2B2B2B2B2 --access 110,000,000,011
    check "the old key no longer opens the sector" 1 "authentication of block 8" -- classic read "${v[@]}" --block 8
    check "purse: set with key B" 0 "block 8: value 500" -- classic value "${v[@]}" --block 8 --set 500 \
        --key B2B2B2B2B2B2 --key-type b
    check "purse: decrement with key A (allowed by 110)" 0 "block 8: value 480" -- classic value "${v[@]}" \
        --block 8 --subtract 20 --key A2A2A2A2A2A2
    check "purse: increment with key A (refused by 110)" 1 "" -- classic value "${v[@]}" --block 8 --add 20 \
        --key A2A2A2A2A2A2
    check "purse: increment with key B" 0 "block 8: value 500" -- classic value "${v[@]}" --block 8 --add 20 \
        --key B2B2B2B2B2B2 --key-type b
    check "purse: the refused write with key A left the value" 0 "block 8: value 500" -- classic value "${v[@]}" \
        --block 8 --key A2A2A2A2A2A2
    check "trailer read with the new key A: access bits, key B hidden" 0 "6E 17 89 69 00 00 00 00 00 00" -- \
        classic trailer "${v[@]}" --sector 2 --key A2A2A2A2A2A2
    check "ndef read of an unformatted card names it" 1 "not formatted for NDEF" -- ndef read "${v[@]}"
    check "mad of an unformatted card is refused" 1 "authentication of block" -- classic mad "${v[@]}"
    check "ndef format (sector 2 has other keys: refused before any write)" 1 "authentication" -- \
        classic ndef format "${v[@]}" --new-key-b 0A0B0C0D0E0F
    check "sector 0 still opens with the transport key after the refused format" 0 "block +1 " -- \
        classic read "${v[@]}" --block 1
}

classic_format_checks() { # variant: a fresh card, formatted for NDEF
    local v=(--variant "$1")
    check "ndef format" 0 "" -- classic ndef format "${v[@]}" --new-key-b 0A0B0C0D0E0F
    check "mad lists the NDEF sectors" 0 "sector 15: .*E1 ?03|sector 15: NDEF" -- classic mad "${v[@]}"
    check "classic ndef write" 0 "" -- classic ndef write "${v[@]}" --text "datasheet partner"
    check "ndef read (generic) reads it" 0 "datasheet partner" -- ndef read "${v[@]}"
    check "ndef write (generic)" 0 "" -- ndef write "${v[@]}" --uri https://example.org/classic
    check "classic ndef read reads it" 0 "https://example.org/classic" -- classic ndef read "${v[@]}"
}

ntag_checks() { # variant
    local v=(--variant "$1")
    check "info" 0 "NTAG215, UID 04A1B2C3D4E580, GET_VERSION 0004040201001103" -- ntag info "${v[@]}"
    check "read CC and the empty NDEF TLV" 0 "E1103E000300FE00" -- ntag read "${v[@]}" --page 3 --count 2
    check "write a page" 0 "" -- ntag write "${v[@]}" --page 0x20 --data CAFEF00D
    check "read it back" 0 "^CAFEF00D$" -- ntag read "${v[@]}" --page 32 --count 1
    check "a count past the end is refused" 2 "runs past the last page" -- ntag read "${v[@]}" --page 134 --count 2
    check "signature" 0 "202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F" -- ntag signature "${v[@]}"
    check "counter with NFC_CNT_EN off: the tag's NAK, named" 1 "NFC counter is off" -- ntag counter "${v[@]}"
    check "ndef read of the factory tag: empty message" 0 "empty NDEF message" -- ndef read "${v[@]}"
    check "ndef write" 0 "" -- ndef write "${v[@]}" --uri https://example.org/ntag
    check "ndef read" 0 "https://example.org/ntag" -- ndef read "${v[@]}"
    check "pwd-set protecting reads from page 16" 0 "protected from page 16" -- ntag pwd-set "${v[@]}" \
        --new-password 11223344 --new-pack ABCD --auth0 16 --protect-reads
    check "a protected page without the password is refused" 1 "" -- ntag read "${v[@]}" --page 32 --count 1
    check "a page below AUTH0 still reads" 0 "^E1103E00$" -- ntag read "${v[@]}" --page 3 --count 1
    check "with the password and PACK" 0 "^CAFEF00D$" -- ntag read "${v[@]}" --page 32 --count 1 \
        --password 11223344 --pack ABCD
    check "pwd-auth prints the PACK" 0 "ABCD" -- ntag pwd-auth "${v[@]}" --password 11223344
    check "a wrong password is the tag's NAK" 1 "NAK" -- ntag pwd-auth "${v[@]}" --password 00000000
    check "a wrong PACK is refused" 1 "" -- ntag pwd-auth "${v[@]}" --password 11223344 --pack 0000
    check "info without the password names what it cannot read" 0 "unavailable: configuration pages" -- \
        ntag info "${v[@]}"
    check "ndef read of a message below AUTH0 still works" 0 "https://example.org/ntag" -- ndef read "${v[@]}"
}

felica_checks() { # variant
    local v=(--variant "$1")
    check "poll" 0 "FeliCa Lite-S, IDm 012E4CD5A1B2C3D4, PMm 00F1000000014300" -- felica poll "${v[@]}"
    check "write a block" 0 "" -- felica write "${v[@]}" --block 1 --data 00112233445566778899AABBCCDDEEFF
    check "read three blocks" 0 "0001: 00 11 22 33 44 55 66 77 88 99 AA BB CC DD EE FF" -- felica read "${v[@]}" \
        --block 0 --count 3
    check "read the MC block" 0 "0088: FF FF FF 00" -- felica read "${v[@]}" --block 0x88
    check "a block outside the card is the card's status" 1 "A8|status" -- felica read "${v[@]}" --block 0x20
    check "ndef format" 0 "formatted" -- felica ndef format "${v[@]}"
    check "ndef write" 0 "" -- felica ndef write "${v[@]}" --uri https://example.org/felica
    check "ndef read" 0 "https://example.org/felica" -- felica ndef read "${v[@]}"
    check "poll answers with the NDEF system code now" 0 "system code 12FC" -- felica poll "${v[@]}"
}

for reader in generic acs identiv; do
    variant=$([[ $reader == generic ]] && echo genericPart3 || echo "$reader")
    start classic1k "$reader"
    classic_checks "$variant"
    start classic1k "$reader"
    classic_format_checks "$variant"
done
for reader in generic acs identiv; do
    variant=$([[ $reader == generic ]] && echo genericPart3 || echo "$reader")
    start ntag215 "$reader"
    ntag_checks "$variant"
done
for reader in generic acs; do
    variant=$([[ $reader == generic ]] && echo genericPart3 || echo "$reader")
    start felica-lite-s "$reader"
    felica_checks "$variant"
done
stop

echo "datasheet-cards-check: cards and readers written from the datasheets and manuals"
printf '  %s\n' "${summary[@]}"
echo "datasheet-cards-check: $passed passed, $failed failed (logs: $logs)"
[[ $failed -eq 0 ]]
