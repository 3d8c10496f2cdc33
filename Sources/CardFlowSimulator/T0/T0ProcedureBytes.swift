/// The characters a T=0 card puts on the I/O line for one command (ISO/IEC 7816-3 §10.3.3),
/// for a character-level reader, which does not collapse procedure bytes as a TPDU reader does.
///
/// Procedure bytes: `60` NULL (more time), INS (ACK: all remaining data bytes follow), INS ⊕ FF
/// (only the next data byte follows), or SW1 (SW2 follows, the command is over).
public enum T0ProcedureBytes {
    /// The card's side of the exchange for a command with header `header` and
    /// `incomingLength` data bytes from the terminal, whose TPDU-level answer is `answer`
    /// (data and SW1 SW2, as ``T0CardEndpoint`` gives it).
    ///
    /// - Parameters:
    ///   - header: the command's 5-byte header.
    ///   - incomingLength: the number of data bytes the terminal sends.
    ///   - answer: the card's TPDU-level answer.
    ///   - nullBytes: NULL procedure bytes sent first (the card asking for more time).
    ///   - oneByteAtATime: ACK each data byte with INS ⊕ FF instead of all at once with INS.
    /// - Returns: the bytes the card sends, in order; the terminal's data bytes go between
    ///   the ACKs.
    public static func cardCharacters(
        header: [UInt8], incomingLength: Int, answer: [UInt8],
        nullBytes: Int = 0, oneByteAtATime: Bool = false
    ) -> [UInt8] {
        precondition(header.count >= 2 && answer.count >= 2, "a header and an answer with SW1 SW2")
        let ins = header[1]
        let data = answer.dropLast(2)
        let status = Array(answer.suffix(2))
        var line = [UInt8](repeating: 0x60, count: nullBytes)
        if incomingLength > 0 {
            // A card that refuses the command (error status, no processing) does so before
            // taking the data; otherwise it takes the data, then answers.
            let processed = [0x90, 0x61, 0x62, 0x63].contains(status[0])
            if processed {
                line += oneByteAtATime ? [UInt8](repeating: ~ins, count: incomingLength) : [ins]
            }
            return line + status
        }
        if data.isEmpty { return line + status }
        if oneByteAtATime {
            for byte in data { line += [~ins, byte] }
        } else {
            line += [ins] + data
        }
        return line + status
    }
}
