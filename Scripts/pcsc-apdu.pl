#!/usr/bin/perl
# Sends command APDUs through PC/SC (pcsc-lite's SCardTransmit) and prints every answer as exact
# bytes, one line per APDU, for Scripts/ccid-differential.sh. Nothing is interpreted: 61xx and
# 6Cxx come back as the card (and the reader driver) gave them.
#
# Usage:
#   Scripts/pcsc-apdu.pl [--t0-transport] READER < SCRIPT
#     --t0-transport  when pcsc-lite chose T=0, do what ISO/IEC 7816-4's T=0 transport (and
#             CardFlow's T=0 layer) does and pcsc-lite leaves to the application: case 4 goes
#             as case 3 (Le dropped), 6Cxx to a
#             command that expects data re-sends it with P3 = xx (once in a row), and 61xx while
#             data is still expected fetches it with GET RESPONSE, data concatenated. So an
#             application sees the same answers from both stacks.
#     READER  the PC/SC reader name (pcsc_scan -r lists them)
#     SCRIPT  hex APDUs, one a line (spaces allowed); a line "--" starts a new segment, which
#             begins with a fresh card session (SCardReconnect with a card reset)
#
# Output, one line per APDU in order:
#   OK <HEX>     the whole response (data and SW1 SW2), uppercase, no spaces
#   ERR <text>   SCardTransmit failed (the rest of the segment is not sent)
#   NOTRUN       not sent, because an earlier APDU of the segment failed
# and first a line "PROTOCOL T=0|T=1" with the protocol pcsc-lite chose.
#
# Uses Chipcard::PCSC (Debian libpcsc-perl, which pcsc-tools' scriptor needs as well). Unlike
# scriptor, it keeps going after a failed APDU and prints long answers on one line.
use strict;
use warnings;
use Chipcard::PCSC;
use Chipcard::PCSC::Card;

my $t0_transport = 0;
if (@ARGV && $ARGV[0] eq '--t0-transport') { $t0_transport = 1; shift @ARGV; }
my $reader = shift @ARGV or die "usage: $0 [--t0-transport] READER < SCRIPT\n";
my @segments = ([]);
while (my $line = <STDIN>) {
    chomp $line;
    $line =~ s/\s+//g;
    next if $line eq '';
    if ($line eq '--') { push @segments, [] if @{$segments[-1]}; next; }
    die "not hex: $line\n" unless $line =~ /^([0-9A-Fa-f]{2})+$/;
    push @{$segments[-1]}, $line;
}

my $context = Chipcard::PCSC->new() or die "SCardEstablishContext: $Chipcard::PCSC::errno\n";
my $card = Chipcard::PCSC::Card->new($context, $reader, $Chipcard::PCSC::SCARD_SHARE_EXCLUSIVE)
    or die "SCardConnect: $Chipcard::PCSC::errno\n";
my $protocol = $card->{dwProtocol} == $Chipcard::PCSC::SCARD_PROTOCOL_T0 ? 'T=0' : 'T=1';
$| = 1;
print "PROTOCOL $protocol\n";

my $first = 1;
for my $segment (@segments) {
    if (!$first) {
        # A fresh session, as a new `cardctl apdu` run powers the card on afresh.
        defined $card->Reconnect($Chipcard::PCSC::SCARD_SHARE_EXCLUSIVE, $card->{dwProtocol},
                                 $Chipcard::PCSC::SCARD_RESET_CARD)
            or die "SCardReconnect: $Chipcard::PCSC::errno\n";
    }
    $first = 0;
    my $failed = 0;
    for my $apdu (@$segment) {
        if ($failed) { print "NOTRUN\n"; next; }
        my @send = map { hex } ($apdu =~ /(..)/g);
        my $answer = ($t0_transport && $protocol eq 'T=0') ? t0_transmit(\@send) : $card->Transmit(\@send);
        if (defined $answer) {
            print 'OK ', join('', map { sprintf '%02X', $_ } @$answer), "\n";
        } else {
            print "ERR $Chipcard::PCSC::errno\n";
            $failed = 1;
        }
    }
}
$card->Disconnect($Chipcard::PCSC::SCARD_UNPOWER_CARD);

# The data a short command APDU expects (Ne; 256 for Le = 00), undef for cases 1 and 3.
sub expected_length {
    my ($apdu) = @_;
    my $n = @$apdu;
    return undef if $n <= 4;
    my $b5 = $apdu->[4];
    return $b5 == 0 ? 256 : $b5 if $n == 5;
    return undef if $n == 5 + $b5;
    my $le = $apdu->[-1];
    return $le == 0 ? 256 : $le;
}

# ISO/IEC 7816-4 §5.4.1: GET RESPONSE keeps an interindustry class's channel bits.
sub get_response_class {
    my ($cla) = @_;
    return $cla & 0x0F if $cla <= 0x1F;
    return $cla & 0xEF if $cla >= 0x40 && $cla <= 0x7F;
    return 0x00;
}

# One command through SCardTransmit with the T=0 transport's 6Cxx and 61xx handling (bounded
# as CardFlow's: one Le correction in a row, 257 GET RESPONSE rounds).
sub t0_transmit {
    my ($command) = @_;
    my $expected = expected_length($command);
    my @tpdu = @$command;
    # A short case 4 command goes as case 3, Le dropped (ISO/IEC 7816-3 §12.2.4); its data then
    # comes with 61xx and GET RESPONSE. libccid's character-level T=0 refuses case 4 outright.
    pop @tpdu if @tpdu > 6 && $tpdu[4] != 0 && @tpdu == 6 + $tpdu[4];
    my @gathered;
    my ($corrections, $rounds) = (0, 0);
    while (1) {
        my $answer = $card->Transmit(\@tpdu);
        return undef unless defined $answer;
        return [@gathered, @$answer] if @$answer < 2;
        my ($sw1, $sw2) = @$answer[-2, -1];
        if ($sw1 == 0x6C && defined $expected && @tpdu <= 5 && $corrections < 1) {
            $corrections++;
            @tpdu = (@tpdu[0 .. 3], $sw2);
            next;
        }
        push @gathered, @$answer[0 .. $#$answer - 2];
        if ($sw1 == 0x61 && defined $expected && @gathered < $expected && $rounds < 257) {
            $rounds++;
            $corrections = 0;
            my $announced = $sw2 == 0 ? 256 : $sw2;
            my $wanted = $expected - @gathered < $announced ? $expected - @gathered : $announced;
            @tpdu = (get_response_class($command->[0]), 0xC0, 0x00, 0x00, $wanted >= 256 ? 0 : $wanted);
            next;
        }
        return [@gathered, $sw1, $sw2];
    }
}
