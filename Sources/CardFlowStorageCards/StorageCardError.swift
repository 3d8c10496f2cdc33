import CardFlow

/// Why a storage-card operation failed. Errors from the card carry the instruction and the status
/// word, and a likely cause where the status word alone misleads.
public enum StorageCardError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An argument the caller gave cannot be used (a key of the wrong length, a data block of
    /// another size…); nothing was sent.
    case invalidArgument(String)
    /// The block does not exist on this card layout; nothing was sent.
    case blockOutOfRange(block: Int, blockCount: Int)
    /// The plain block write refuses block 0 (the manufacturer block) and sector trailers; trailers
    /// go through ``ClassicClient/writeTrailer(_:sector:force:)``. Nothing was sent.
    case plainWriteRefused(block: Int, reason: String)
    /// The trailer would leave no key able to write it again; write it with `force` to mean it.
    case trailerWouldLockSector(sector: Int)
    /// Access bits whose inverted copies do not match (a card blocks such a sector for good).
    case malformedAccessBits([UInt8])
    /// The block's value copies or address copies disagree: it is no value block.
    case notAValueBlock(block: Int)
    /// A block came back with another length than 16 bytes (block -1: not known).
    case wrongBlockLength(block: Int, length: Int)
    /// The MAD does not decode (lengths, CRC).
    case malformedMAD(String)
    /// The NDEF area does not decode, or the message does not fit.
    case malformedNDEF(String)
    /// The NDEF message (with its TLV) does not fit the NDEF sectors.
    case ndefTooLarge(size: Int, capacity: Int)
    /// The reader family cannot do this (non-volatile keys, key slots outside its range, value
    /// commands); nothing was sent.
    case unsupportedByReader(family: StorageReaderFamily, what: String)
    /// Authentication of `block` with `keyType` failed. The card has left the selected state (a
    /// failed MIFARE Classic authentication halts it): reconnect (re-activate the card) before
    /// the next try.
    case authenticationFailed(block: Int, keyType: ClassicKeyType, statusWord: StatusWord, likelyCause: String)
    /// The card refused an operation on an authenticated block: the sector's access bits forbid it
    /// with the key used, or the block is no value block. The card halts after a refusal too:
    /// authenticate again (after reconnecting) before the next operation.
    case operationRefused(instruction: UInt8, block: Int, statusWord: StatusWord, likelyCause: String)
    /// The sector holding `block` is not authenticated in this client: authenticate first.
    case notAuthenticated(block: Int)
    /// The reader answered a command with a status word other than `90 00`.
    case commandFailed(instruction: UInt8, statusWord: StatusWord, likelyCause: String?)
    /// The reader's answer has an unexpected length.
    case unexpectedResponse(instruction: UInt8, length: Int)
    /// The card left the reader during `operation`.
    case cardLost(CardLoss, operation: String)
    /// The card is no MIFARE Classic (by its ATR), or its layout is not known.
    case notAClassicCard(String)
    /// A MIFARE Classic card whose sector 0 does not open with the public MAD key: no MAD, so no
    /// NDEF (NXP AN1304); the text says what was tried.
    case notNDEFFormatted(String)
    /// The card did not answer the raw frame (first byte `command`) in time: RF time-out, or no
    /// card in the field.
    case rfNoAnswer(command: UInt8, route: StorageRawFrameRoute)
    /// The reader reports another RF error for the raw frame (CRC, parity, collision…); `code`
    /// is the reader's error code.
    case rfError(command: UInt8, route: StorageRawFrameRoute, code: UInt8)
    /// The reader refused the pass-through APDU itself (it does not know the route, or no
    /// transparent session is open).
    case passThroughRefused(command: UInt8, route: StorageRawFrameRoute, statusWord: StatusWord)
    /// The reader's answer does not follow the route's form.
    case malformedPassThroughAnswer(command: UInt8, route: StorageRawFrameRoute, reason: String)
    /// A Type 2 tag answered `command` with a 4-bit NAK (`0` invalid argument or access
    /// refused, `1` parity/CRC error, `4` authentication counter overflow, `5` EEPROM write
    /// error); `code` is nil where the reader does not pass the NAK's value on (a PN532 reports
    /// it as a CRC error or a MIFARE error). The tag has gone back to IDLE: reconnect before the
    /// next command.
    case cardNAK(command: UInt8, page: Int?, code: UInt8?, likelyCause: String)
    /// PWD_AUTH succeeded but the tag's PACK is not the one expected: it may not be the tag
    /// the password was set on.
    case packMismatch(expected: [UInt8], received: [UInt8])
    /// The page is not on this tag; nothing was sent.
    case pageOutOfRange(page: Int, pageCount: Int)
    /// The card is no Type 2 tag this layer drives (by its ATR or GET_VERSION).
    case notAType2Tag(String)
    /// The tag has no such command or memory (a plain Ultralight has no password, NTAG21x
    /// counters are only 02…); nothing was sent.
    case unsupportedByProduct(product: Type2Product, what: String)
    /// A part 3 READ/UPDATE BINARY on a Type 2 tag failed with this status word.
    case pageAccessFailed(instruction: UInt8, page: Int, statusWord: StatusWord, likelyCause: String)
    /// The card is not a FeliCa card (another ATR).
    case notAFeliCaCard(String)
    /// A FeliCa card reported an error in its status flags: flag 1 is `FF` for the whole
    /// command or has the bit of the failing block-list element, flag 2 says why.
    case feliCaStatus(command: UInt8, flag1: UInt8, flag2: UInt8, likelyCause: String)
    /// A FeliCa answer that does not follow the command's form (length byte, response code,
    /// another card's IDm, a block count other than asked).
    case malformedFeliCaAnswer(command: UInt8, reason: String)
    /// The FeliCa IC has no such feature (the Lite memory map on a FeliCa Standard card).
    case unsupportedByFeliCaProduct(product: FeliCaProduct, what: String)
    /// An NDEF write began and did not finish (Type 3 WriteF `0F`): the card left mid-write.
    /// The data is not a message; write it again.
    case ndefWriteInterrupted

    /// A status word of a PC/SC part 3 storage command in part 3's terms: `63 00` there means
    /// the operation failed (part 3 gives no more), not ISO 7816-4's "non-volatile memory
    /// changed" warning; `6A 81` the reader does not support the function; other words as
    /// ISO 7816-4 reads them.
    public static func part3Meaning(_ statusWord: StatusWord) -> String {
        switch statusWord.rawValue {
        case 0x6300: "63 00 (the reader reports the operation failed; PC/SC part 3 gives no detail)"
        case 0x6A81: "6A 81 (function not supported by the reader)"
        default: "\(statusWord)"
        }
    }

    /// As ``part3Meaning(_:)``, in the terms of the command `instruction` where PC/SC part 3
    /// gives its status words their own meaning: LOAD KEYS (`82`, §3.2.2.1.4) uses `69 82`–`69 89`
    /// for key and memory refusals, which ISO 7816-4 reads as secure-messaging errors.
    public static func part3Meaning(_ statusWord: StatusWord, instruction: UInt8) -> String {
        guard instruction == 0x82 else { return part3Meaning(statusWord) }
        let loadKeys: [UInt16: String] = [
            0x6982: "card key not supported", 0x6983: "reader key not supported",
            0x6984: "plain transmission not supported", 0x6985: "secured transmission not supported",
            0x6986: "volatile memory is not available", 0x6987: "non-volatile memory is not available",
            0x6988: "key number not valid", 0x6989: "key length is not correct",
        ]
        guard let meaning = loadKeys[statusWord.rawValue] else { return part3Meaning(statusWord) }
        let raw = statusWord.rawValue
        return "\([UInt8(raw >> 8), UInt8(truncatingIfNeeded: raw)].spacedHexString) (LOAD KEYS: \(meaning))"
    }

    /// The likely cause text for a failed GENERAL AUTHENTICATE with `63 00`, `69 88` or `69 82`.
    public static let wrongKeyOrSlot = "wrong key or wrong key slot for this reader family"

    public var description: String {
        switch self {
        case .invalidArgument(let text): "invalid argument: \(text)"
        case .blockOutOfRange(let block, let count): "block \(block) is outside the card's \(count) blocks"
        case .plainWriteRefused(let block, let reason): "block \(block) is not written by the plain write: \(reason)"
        case .trailerWouldLockSector(let sector):
            "the trailer for sector \(sector) would leave no key able to write it again (write it with force to mean it)"
        case .malformedAccessBits(let bytes):
            "malformed access bits \(bytes.spacedHexString) (inverted copies disagree)"
        case .notAValueBlock(let block): "block \(block) is no value block (its copies disagree)"
        case .wrongBlockLength(let block, let length): "block \(block) came back with \(length) bytes, not 16"
        case .malformedMAD(let text): "malformed MAD: \(text)"
        case .malformedNDEF(let text): "malformed NDEF area: \(text)"
        case .ndefTooLarge(let size, let capacity):
            "the NDEF TLV (\(size) bytes) does not fit the NDEF sectors (\(capacity) bytes)"
        case .unsupportedByReader(let family, let what): "\(family) readers cannot \(what)"
        case .authenticationFailed(let block, let keyType, let statusWord, let cause):
            "authentication of block \(block) with \(keyType) failed (\(statusWord.hexString)): likely \(cause); "
                + "the card left the selected state, reconnect before trying again"
        case .operationRefused(let ins, let block, let statusWord, let cause):
            "INS \([ins].hexString) on block \(block) refused (\(statusWord.hexString)): likely \(cause)"
        case .notAuthenticated(let block): "the sector of block \(block) is not authenticated"
        case .commandFailed(let ins, let statusWord, let cause):
            "INS \([ins].hexString) failed: \(Self.part3Meaning(statusWord, instruction: ins))"
                + (cause.map { ", likely \($0)" } ?? "")
        case .unexpectedResponse(let ins, let length): "INS \([ins].hexString): unexpected \(length)-byte answer"
        case .cardLost(let loss, let operation): "card lost during \(operation) (\(loss))"
        case .notAClassicCard(let text): "not a MIFARE Classic card: \(text)"
        case .notNDEFFormatted(let text): "not formatted for NDEF: \(text)"
        case .rfNoAnswer(let command, let route):
            "the card did not answer command \([command].hexString) in time (\(route))"
        case .rfError(let command, let route, let code):
            "RF error \([code].hexString) on command \([command].hexString) (\(route))"
        case .passThroughRefused(let command, let route, let statusWord):
            "the reader refused the pass-through of command \([command].hexString) (\(route)): \(statusWord.hexString)"
        case .malformedPassThroughAnswer(let command, let route, let reason):
            "malformed pass-through answer to command \([command].hexString) (\(route)): \(reason)"
        case .cardNAK(let command, let page, let code, let cause):
            "the tag refused command \([command].hexString)" + (page.map { " on page \($0)" } ?? "")
                + (code.map { " with NAK \(String($0, radix: 16))" } ?? " with a NAK")
                + ": likely \(cause); reconnect before the next command"
        case .packMismatch(let expected, let received):
            "PACK \(received.spacedHexString) is not the expected \(expected.spacedHexString)"
        case .pageOutOfRange(let page, let count): "page \(page) is outside the tag's \(count) pages"
        case .notAType2Tag(let text): "not a Type 2 tag this layer drives: \(text)"
        case .unsupportedByProduct(let product, let what): "\(product) cannot \(what)"
        case .pageAccessFailed(let ins, let page, let statusWord, let cause):
            "INS \([ins].hexString) on page \(page) failed (\(statusWord.hexString)): likely \(cause)"
        case .notAFeliCaCard(let text): "not a FeliCa card: \(text)"
        case .feliCaStatus(let command, let flag1, let flag2, let cause):
            "FeliCa command \([command].hexString) failed with status \([flag1, flag2].spacedHexString): likely \(cause)"
        case .malformedFeliCaAnswer(let command, let reason):
            "malformed FeliCa answer to command \([command].hexString): \(reason)"
        case .unsupportedByFeliCaProduct(let product, let what): "\(product) has no \(what)"
        case .ndefWriteInterrupted:
            "an NDEF write on this tag did not finish (the card left mid-write): write the message again"
        }
    }
}

extension StorageCardError {
    /// Whether the reader refused its raw-frame pass-through itself (the card saw nothing).
    public var isPassThroughRefusal: Bool {
        if case .passThroughRefused = self { return true }
        return false
    }
}

extension StorageCardError: CardLossClassifying {
    /// How the card was lost, for ``StorageCardError/cardLost(_:operation:)``; nil otherwise.
    public var cardLoss: CardLoss? {
        if case .cardLost(let loss, _) = self { return loss }
        return nil
    }
}
