extension CardChannel {
    /// Sends a command and completes the exchange the way ISO/IEC 7816-4 and 7816-3 (T=0) expect
    /// a terminal to.
    ///
    /// - `61xx`: the data of that answer is kept and GET RESPONSE (`INS C0`, `P1P2 0000`,
    ///   Le = the announced count) fetches the rest; repeated `61xx` answers are concatenated.
    ///   GET RESPONSE keeps the secure-messaging and logical-channel bits of an interindustry CLA
    ///   (`0x00...0x1F`, `0x40...0x7F`) and clears the command-chaining bit, as ISO/IEC 7816-4
    ///   section 5.4.1 defines them; any other CLA (proprietary, e.g. `0x80`, `0x90`) gets `0x00`.
    /// - `6Cxx`: the last command is sent again with Le = `xx` (`00` meaning 256).
    ///
    /// Each follow-up is bounded by `policy`, so a card that keeps asking ends the exchange with an
    /// error instead of a loop. The returned response carries all gathered data and the final
    /// status word, which may be any status; use ``ResponseAPDU/throwIfNotSuccess(for:)`` to
    /// require `9000`.
    ///
    /// - Throws: ``APDUExchangeError`` when a bound is hit, or whatever ``transmit(_:)`` throws.
    public func send(_ command: CommandAPDU, policy: ResponseChainingPolicy = .default) async throws -> ResponseAPDU {
        var current = command
        var gathered: [UInt8] = []
        var getResponseRounds = 0
        var leCorrections = 0

        while true {
            let response = try await transmit(current)
            let statusWord = response.statusWord

            if let available = statusWord.bytesAvailable {
                guard getResponseRounds < policy.maxGetResponseRounds else {
                    throw APDUExchangeError(
                        reason: .getResponseRoundsExceeded(limit: max(policy.maxGetResponseRounds, 0)),
                        command: command,
                        statusWord: statusWord
                    )
                }
                getResponseRounds += 1
                try gather(response, into: &gathered, for: command, policy: policy)
                current = .getResponse(following: command, length: available)
            } else if let length = statusWord.correctLength {
                guard leCorrections < policy.maxLeCorrections else {
                    throw APDUExchangeError(
                        reason: .leCorrectionsExceeded(limit: max(policy.maxLeCorrections, 0)),
                        command: command,
                        statusWord: statusWord
                    )
                }
                leCorrections += 1
                // A 6Cxx answer carries no usable data; only the Le changes (1...256 is always valid).
                current = CommandAPDU(
                    validatedCLA: current.cla, ins: current.ins, p1: current.p1, p2: current.p2,
                    data: current.data, le: length
                )
            } else {
                try gather(response, into: &gathered, for: command, policy: policy)
                return ResponseAPDU(data: gathered, statusWord: statusWord)
            }
        }
    }

    private func gather(
        _ response: ResponseAPDU,
        into gathered: inout [UInt8],
        for command: CommandAPDU,
        policy: ResponseChainingPolicy
    ) throws(APDUExchangeError) {
        guard gathered.count + response.data.count <= policy.maxResponseDataLength else {
            throw APDUExchangeError(
                reason: .responseDataLimitExceeded(limit: policy.maxResponseDataLength),
                command: command,
                statusWord: response.statusWord
            )
        }
        gathered += response.data
    }
}

extension CommandAPDU {
    /// GET RESPONSE (`INS C0`, `P1P2 0000`) asking for `length` (1...256) bytes of `command`'s answer.
    static func getResponse(following command: CommandAPDU, length: Int) -> CommandAPDU {
        CommandAPDU(
            validatedCLA: getResponseClass(for: command.cla), ins: 0xC0, p1: 0x00, p2: 0x00,
            data: [], le: length
        )
    }

    /// The CLA for GET RESPONSE after a command with class `cla` (ISO/IEC 7816-4 section 5.4.1).
    static func getResponseClass(for cla: UInt8) -> UInt8 {
        switch cla {
        case 0x00...0x1F:
            // First interindustry values 000x xxxx: b5 chaining, b4-b3 secure messaging, b2-b1 channel.
            return cla & 0x0F
        case 0x40...0x7F:
            // Further interindustry values 01xx xxxx: b6 secure messaging, b5 chaining, b4-b1 channel - 4.
            return cla & 0xEF
        default:
            // 001x xxxx is reserved, 1xxx xxxx proprietary: their bits have no ISO meaning to keep.
            return 0x00
        }
    }
}
