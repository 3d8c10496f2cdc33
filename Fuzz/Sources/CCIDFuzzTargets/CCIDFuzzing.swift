import CardFlowCCIDProtocol
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// The CCID codec: what a reader (or, for the simulator, a host) puts on the bulk and interrupt
/// endpoints, the class descriptor, the class requests' answers and the card's ATR.
enum CCIDFuzzing {
    /// RDR_to_PC messages: decoding what was encoded gives it back.
    static func response(_ bytes: [UInt8]) {
        guard let response = try? CCIDResponse(decoding: bytes) else { return }
        let again = try? CCIDResponse(decoding: response.encoded())
        fuzzCheck(again == response, "CCIDResponse does not survive encode/decode: \(response)")
        _ = response.slotError
    }

    /// PC_to_RDR messages, as the simulated reader decodes them.
    static func command(_ bytes: [UInt8]) {
        guard let command = try? CCIDCommand(decoding: bytes) else { return }
        let again = try? CCIDCommand(decoding: command.encoded())
        fuzzCheck(again == command, "CCIDCommand does not survive encode/decode: \(command)")
    }

    /// Interrupt-IN messages; the first byte is the reader's slot count (bMaxSlotIndex + 1).
    static func interrupt(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let slotCount = Int(input.byte()) + 1
        let payload = input.rest()
        guard let message = try? CCIDInterruptMessage(decoding: payload, slotCount: slotCount) else { return }
        if case .slotChange(let changes) = message {
            fuzzCheck(changes.count == slotCount, "\(changes.count) slot changes for \(slotCount) slots")
        }
        let again = try? CCIDInterruptMessage(decoding: message.encoded(), slotCount: slotCount)
        fuzzCheck(again == message, "CCIDInterruptMessage does not survive encode/decode: \(message)")
    }

    /// The class descriptor, and the class requests' lists of clocks and data rates.
    static func descriptor(_ bytes: [UInt8]) {
        let values = CCIDClassRequest.decodeValues(bytes)
        fuzzCheck(values.count == bytes.count / 4, "\(values.count) values from \(bytes.count) bytes")
        guard let descriptor = try? CCIDClassDescriptor(bytes: bytes) else { return }
        let encoded = descriptor.encoded()
        fuzzCheck(encoded.count == CCIDClassDescriptor.length, "descriptor encodes to \(encoded.count) bytes")
        fuzzCheck(encoded[2...] == bytes[2..<CCIDClassDescriptor.length], "descriptor fields do not round-trip")
        fuzzCheck(descriptor.maxMessageLength > 10, "a descriptor with no room for a message was accepted")
    }

    /// The answer to reset: what the parser keeps is consistent with the bytes.
    static func answerToReset(_ bytes: [UInt8]) {
        guard let atr = try? AnswerToReset(bytes: bytes) else { return }
        fuzzCheck(atr.bytes == bytes, "ATR keeps other bytes than it parsed")
        fuzzCheck(atr.historicalBytes.count == Int(bytes[1] & 0x0F), "historical byte count differs from T0")
        fuzzCheck((1...254).contains(atr.t1IFSC), "IFSC \(atr.t1IFSC) out of 1...254")
        fuzzCheck(!atr.protocols.isEmpty && atr.protocols.allSatisfy { $0 < 16 }, "protocols \(atr.protocols)")
    }
}
