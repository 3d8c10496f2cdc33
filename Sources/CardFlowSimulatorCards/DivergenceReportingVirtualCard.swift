/// A card model that can say why it stopped answering: a replayed card whose recording did not
/// expect the command it was sent goes mute, and the reader that places it reports the reason
/// beside the mute card, so a user of `cardctl` sees more than "the card did not answer".
public protocol DivergenceReportingVirtualCard: VirtualCard {
    /// Why the card went mute; nil while it answers.
    var divergence: (any Error & Sendable)? { get }
}
