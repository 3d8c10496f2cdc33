@testable import CardFlowNDEF
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// NDEF: messages and their typed records, the TLV area of Type 2 and Type 5 tags, and the
/// Type 4 capability container, all read from tags.
enum NDEFFuzzing {
    /// Messages in both modes; a strictly decoded message re-encodes to one that decodes the same,
    /// and every typed view of its records reads back from the record it makes.
    static func message(_ bytes: [UInt8]) {
        _ = try? NDEFMessage(decoding: bytes, mode: .lenient)
        guard let message = try? NDEFMessage(decoding: bytes, mode: .strict) else { return }
        guard let encoded = try? message.encoded() else {
            fuzzCheck(false, "a strictly decoded message does not encode: \(message)")
            return
        }
        let again = try? NDEFMessage(decoding: encoded, mode: .strict)
        fuzzCheck(again == message, "NDEFMessage does not survive encode/decode")
        if let chunked = try? message.encoded(chunkSize: 7) {
            fuzzCheck(
                (try? NDEFMessage(decoding: chunked, mode: .strict)) == message, "chunked encoding decodes differently")
        }
        for record in message.records {
            view(URIRecord.self, of: record)
            view(TextRecord.self, of: record)
            view(SmartPosterRecord.self, of: record)
            view(MIMERecord.self, of: record)
            view(ExternalTypeRecord.self, of: record)
            view(AndroidApplicationRecord.self, of: record)
        }
    }

    private static func view<View: NDEFRecordView>(_ type: View.Type, of record: NDEFRecord) {
        _ = try? View(record, mode: .lenient)
        guard let view = try? View(record, mode: .strict) else { return }
        let again = try? View(view.record, mode: .strict)
        fuzzCheck(again == view, "\(View.self) does not read back from the record it makes")
    }

    /// The TLV walk of Type 2 / Type 5 data areas: terminates, and what it finds is inside the area.
    static func tlvArea(_ bytes: [UInt8]) {
        guard let location = try? Type2Tag.locateNDEF(in: bytes) else { return }
        fuzzCheck(bytes[location.tlvOffset] == 0x03, "NDEF TLV at \(location.tlvOffset) is not tag 03")
        fuzzCheck(
            location.valueOffset == location.tlvOffset + 2 || location.valueOffset == location.tlvOffset + 4,
            "value offset \(location.valueOffset) for a TLV at \(location.tlvOffset)")
        fuzzCheck(location.valueOffset <= bytes.count, "value offset past the area")
        fuzzCheck((0...0xFFFF).contains(location.length), "TLV length \(location.length)")
    }

    /// Type 4 CC: the limits it reports are ones a short APDU can use.
    static func type4CapabilityContainer(_ bytes: [UInt8]) {
        guard let container = try? Type4CapabilityContainer(bytes: bytes) else { return }
        fuzzCheck((15...256).contains(container.maximumReadLength), "MLe \(container.maximumReadLength)")
        fuzzCheck((1...255).contains(container.maximumWriteLength), "MLc \(container.maximumWriteLength)")
        fuzzCheck(
            (3...0xFFFF).contains(container.maximumNDEFFileSize), "NDEF file size \(container.maximumNDEFFileSize)")
        fuzzCheck(container.ndefFileID.count == 2, "file ID \(container.ndefFileID)")
    }
}
