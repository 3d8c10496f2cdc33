import CardFlow
import Synchronization

/// A ``/CardFlow/CardChannel`` that counts the commands it passes to another channel, so an
/// operation's APDUs (GET RESPONSE and 0xAF continuation frames included) are known.
final class APDUCountingChannel: CardChannel {
    /// The channel the commands go to.
    let base: any CardChannel
    private let sent = Atomic<Int>(0)

    /// - Parameter base: the channel to count the commands of.
    init(wrapping base: any CardChannel) {
        self.base = base
    }

    /// Commands handed to ``base`` so far (those that failed included).
    var count: Int { sent.load(ordering: .relaxed) }

    func transmit(_ command: CommandAPDU) async throws -> ResponseAPDU {
        sent.add(1, ordering: .relaxed)
        return try await base.transmit(command)
    }
}
