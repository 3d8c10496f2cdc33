/// The kinds of wrong answer a ``HostileCard`` gives, each within what a reader can deliver
/// but outside what ISO/IEC 7816-4 or the card's own specification allows for the command.
public enum HostileAnswer: String, Sendable, Hashable, CaseIterable, Codable {
    /// No bytes at all, not even a status word.
    case empty
    /// A single byte: half a status word.
    case halfStatus
    /// `90 00` without data, whatever Le asked for.
    case successWithoutData
    /// `90 00` with fewer data bytes than Le asked for (at least one).
    case successShort
    /// `90 00` with more data bytes than Le asked for, up to the card's maximum.
    case successOversized
    /// `90 00` with exactly Le random bytes: the right length, nonsense contents.
    case successGarbage
    /// An error or unknown status word (with or without data).
    case wrongStatus
    /// A warning status word (`62xx`, `63xx`), with or without data.
    case warning
    /// `61 xx`: "more data available" (and the GET RESPONSE is answered hostilely as well).
    case moreData
    /// `6C xx`: "wrong Le, use xx".
    case wrongLe
    /// `91 AF` with random data: a DESFire "additional frame" the command did not start.
    case additionalFrame
    /// `91 xx`: a DESFire status byte, known or not.
    case desfireStatus
    /// Random bytes of random length.
    case garbage
    /// The wrapped card's correct answer with one change: a byte set to 00, FF or a random value,
    /// data cut short or lengthened, or the status word replaced (plausible structures with
    /// absurd fields: a capability container claiming 2 KiB, a count of FFFF).
    case mutatedCorrect
    /// The wrapped card's correct answer with every data byte set to FF or every one to 00.
    case extremeData
}

/// A behaviour that, once drawn, lasts until the card is powered again: the answers that make a
/// client loop if it does not bound its follow-up commands.
public enum HostileStickyMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// Every answer is `61 xx`.
    case endlessMoreData
    /// Every answer is `6C xx`.
    case endlessWrongLe
    /// Every answer is `91 AF` with some data.
    case endlessAdditionalFrame
    /// Every answer is `90 00` without data.
    case endlessEmptySuccess
    /// Every answer is empty (the card went mute but stays in the field).
    case mute
}
