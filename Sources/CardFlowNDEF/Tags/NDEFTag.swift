import CardFlow

/// An NDEF-capable NFC Forum tag of whichever type the card turns out to be.
///
/// ```swift
/// let bytes = try await reader.withSession { session in try await NDEFTag.detect(on: session).readMessageBytes() }
/// let message = try NDEFMessage(decoding: bytes)
/// ```
public enum NDEFTag: Sendable {
    case type4(Type4Tag)
    case type2(Type2Tag)
    case type5(Type5Tag)

    /// ISO 15693 tags (8-byte UID starting E0) are Type 5; otherwise tries Type 4 (the NDEF Tag
    /// Application), then Type 2 (a capability container on page 3).
    ///
    /// - Throws: ``NDEFTagError/notAnNDEFTag`` when no type answers; when the card accepted the
    ///   NDEF Tag Application's SELECT but its capability container could not be selected or
    ///   read (and it is no Type 2 tag either), that Type 4 error (``NDEFTagError/fileNotFound(_:)``,
    ///   a `CardStatusError` of the file SELECT or READ BINARY, a malformed container) instead,
    ///   since the application is there; transport, channel and cancellation errors as they are.
    public static func detect(on channel: any CardChannel) async throws -> NDEFTag {
        let type5 = Type5Tag(channel: channel)
        if let uid = try? await type5.tag.uid(), uid.first == 0xE0 {
            _ = try await type5.capabilityContainer()
            return .type5(type5)
        }
        let type4 = Type4Tag(channel: channel)
        // The Type 4 failure after a successful application SELECT, kept to report if Type 2 fails too.
        var type4Failure: (any Error)?
        do {
            _ = try await type4.capabilityContainer()
            return .type4(type4)
        } catch NDEFTagError.notAnNDEFTag {
        } catch let error as CardStatusError {
            if !Self.isApplicationSelect(error.command) { type4Failure = error }
        } catch let error as NDEFTagError {
            type4Failure = error
        }
        let type2 = Type2Tag(channel: channel)
        do {
            _ = try await type2.capabilityContainer()
            return .type2(type2)
        } catch is CardStatusError {
            throw type4Failure ?? NDEFTagError.notAnNDEFTag
        } catch is NDEFTagError {
            throw type4Failure ?? NDEFTagError.notAnNDEFTag
        }
        // Anything else (the reader, the channel, cancellation) is not about the tag: it is
        // passed on rather than reported as "not an NDEF tag".
    }

    /// Whether `command` is the SELECT of the NDEF Tag Application by name.
    private static func isApplicationSelect(_ command: CommandAPDU) -> Bool {
        command.ins == 0xA4 && command.p1 == 0x04
    }

    public func readMessageBytes() async throws -> [UInt8] {
        switch self {
        case .type4(let tag): try await tag.readMessageBytes()
        case .type2(let tag): try await tag.readMessageBytes()
        case .type5(let tag): try await tag.readMessageBytes()
        }
    }

    public func writeMessageBytes(_ message: [UInt8]) async throws {
        switch self {
        case .type4(let tag): try await tag.writeMessageBytes(message)
        case .type2(let tag): try await tag.writeMessageBytes(message)
        case .type5(let tag): try await tag.writeMessageBytes(message)
        }
    }
}
