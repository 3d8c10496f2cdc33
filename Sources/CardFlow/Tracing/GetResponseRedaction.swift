import Synchronization

/// Carries a response redaction over GET RESPONSE (INS C0) rounds.
///
/// When a card answers `61xx`, the rest of the response data arrives in answers to GET RESPONSE
/// commands, which redaction rules (written for the original instruction) do not recognise. This
/// remembers the response ranges of the command that started the chain and how many data bytes
/// have arrived since, so the continuation is hidden at the right offsets.
final class GetResponseRedaction: Sendable {
    enum State: Sendable, Equatable {
        /// The last exchange left nothing to carry over.
        case none
        /// The last exchanges were not traced: a GET RESPONSE could continue anything, so its
        /// whole data is hidden.
        case unknown
        /// The last answer was `61xx` to a command whose response data had `ranges` hidden;
        /// `offset` data bytes of that response have been traced so far.
        case continuing(ranges: [Range<Int>], offset: Int)
    }

    static let getResponseInstruction: UInt8 = 0xC0

    private let state = Mutex(State.none)
    /// Whether `state` is `.unknown`, written with it under the lock: lets an untraced exchange
    /// (every APDU of a session that traces nothing) skip the lock when nothing changes.
    private let isUnknown = Atomic<Bool>(false)

    /// The response ranges to hide for `command` on top of its own rules.
    func carriedRanges(for command: CommandAPDU) -> [Range<Int>] {
        guard command.ins == Self.getResponseInstruction else { return [] }
        switch state.withLock({ $0 }) {
        case .none:
            return []
        case .unknown:
            return APDURedaction.Ranges.wholeData
        case .continuing(let ranges, let offset):
            return ranges.map { range in
                max(range.lowerBound, 0).subtractingClamped(offset)..<range.upperBound.subtractingClamped(offset)
            }
        }
    }

    /// Records a traced exchange: `ownRanges` are the response ranges the rules gave `command`.
    func recordTraced(_ command: CommandAPDU, ownRanges: [Range<Int>], response: ResponseAPDU?) {
        state.withLock { state in
            defer { isUnknown.store(state == .unknown, ordering: .releasing) }
            guard let response, response.sw1 == 0x61 else {
                state = .none
                return
            }
            switch (command.ins == Self.getResponseInstruction, state) {
            case (true, .continuing(let ranges, let offset)):
                state = .continuing(ranges: ranges, offset: offset + response.data.count)
            case (true, .unknown):
                state = .unknown
            default:
                state =
                    ownRanges.allSatisfy(\.isEmpty)
                    ? .none : .continuing(ranges: ownRanges, offset: response.data.count)
            }
        }
    }

    /// Records an exchange that was not traced.
    func recordUntraced() {
        guard !isUnknown.load(ordering: .acquiring) else { return }
        state.withLock { state in
            state = .unknown
            isUnknown.store(true, ordering: .releasing)
        }
    }
}

extension Int {
    fileprivate func subtractingClamped(_ other: Int) -> Int {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? .min : difference
    }
}
