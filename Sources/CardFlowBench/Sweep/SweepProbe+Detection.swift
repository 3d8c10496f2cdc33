import CardFlow

extension SweepProbe {
    /// The probes a card supports, found with harmless commands: the APDU test card's SELECT
    /// (both directions, no writes), else READ BINARY of `fileID` for answers and, for
    /// commands, UPDATE BINARY of it when writes are allowed or SELECT by an unknown name.
    ///
    /// - Parameters:
    ///   - channel: the card.
    ///   - fileID: a transparent EF to read (and write with `allowWrite`), if the user named one.
    ///   - allowWrite: whether UPDATE BINARY may be used.
    ///   - data: seeded command data.
    /// - Returns: the probes, and what could not be measured and why.
    /// - Throws: what the channel throws (a card lost, cancellation).
    public static func detect(
        on channel: any CardChannel, fileID: [UInt8]?, allowWrite: Bool, data: SweepData
    ) async throws -> (probes: [SweepProbe], notes: [String]) {
        let selectTest = try CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: apduTestApplicationID)
        let answer = try await channel.transmit(selectTest)
        if answer.sw1 == 0x90 && answer.sw2 == 0x00 {
            return ([apduTestSink(data: data), apduTestPattern], [])
        }
        var notes: [String] = []
        var probes: [SweepProbe] = []
        if let fileID {
            probes.append(allowWrite ? try updateBinary(fileID: fileID, data: data) : selectName(data: data))
            probes.append(try readBinary(fileID: fileID))
        } else {
            probes.append(selectName(data: data))
            notes.append(
                "answer sizes not measured: name a transparent EF to read with --file FID (its size at least the largest size)"
            )
        }
        return (probes, notes)
    }

    /// The APDU test card's application identifier (`sim:apdu-test`): proprietary RID F0 43 46, "APDU".
    public static let apduTestApplicationID: [UInt8] = [0xF0, 0x43, 0x46, 0x41, 0x50, 0x44, 0x55]
}
