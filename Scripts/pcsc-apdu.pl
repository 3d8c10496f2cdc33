#!/usr/bin/perl
# Sends command APDUs through PC/SC (pcsc-lite's SCardTransmit) and prints every answer as exact
# bytes, one line per APDU, for Scripts/ccid-differential.sh. Nothing is interpreted: 61xx and
# 6Cxx come back as the card (and the reader driver) gave them.
#
# Usage:
#   Scripts/pcsc-apdu.pl READER < SCRIPT
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

my $reader = shift @ARGV or die "usage: $0 READER < SCRIPT\n";
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
        my $answer = $card->Transmit(\@send);
        if (defined $answer) {
            print 'OK ', join('', map { sprintf '%02X', $_ } @$answer), "\n";
        } else {
            print "ERR $Chipcard::PCSC::errno\n";
            $failed = 1;
        }
    }
}
$card->Disconnect($Chipcard::PCSC::SCARD_UNPOWER_CARD);
