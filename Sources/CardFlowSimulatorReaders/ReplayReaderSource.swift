import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import CardFlowTranscripts
import Foundation

/// A recorded reader as a ``/CardFlow/ReaderSource``: the selector `replay:LOG[,profile=PATH]`
/// opens one reader, id `replay:N`, that is the reader of a pcscd + libccid debug log, replayed
/// through ``/CardFlowTranscripts/ReplayUSBTransport`` under CardFlow's CCID driver. A command
/// the recording does not accept fails with the replay's mismatch in the transport error.
///
/// The reader's CCID descriptor comes from `profile=PATH` (a descriptor dump), else from the
/// log's `# descriptor:` header line, looked up in `ccid-readers/` beside the log's folder (the
/// layout of `Tests/Fixtures`): ``TranscriptReaderProfileLookup``, which cardctl's
/// `transcript-check` and `simulate --replay` use too.
///
/// ```swift
/// let sources: [any ReaderSource] = [ReplayReaderSource()]
/// let selector = try ReaderSelector(parsing: "replay:Tests/Fixtures/transcripts/pcsc-66-utrust-3700f-no-card.log", sources: sources)
/// ```
public struct ReplayReaderSource: ReaderSource {
    public init() {}

    public var scheme: String { "replay" }

    public var forms: [String] { ["replay:LOG[,profile=PATH]"] }

    public func check(_ selector: String) throws {
        _ = try ReplaySelector(parsing: selector)
    }

    public func open(_ selector: String, options: ReaderSourceOptions) async throws -> OpenedReaders {
        let parsed = try ReplaySelector(parsing: selector)
        guard let data = FileManager.default.contents(atPath: parsed.log) else {
            throw ReplaySelectorError.unreadable(parsed.log)
        }
        let transcript = try TranscriptParser.parse(String(decoding: data, as: UTF8.self))
        let header = transcript.header
        let profile = try TranscriptReaderProfileLookup(explicitPath: parsed.profile).profile(
            for: transcript, log: parsed.log)
        let descriptor = try CCIDClassDescriptor(bytes: profile.classDescriptorBytes(interface: header.interface))
        let id = "replay:\(options.firstIndex)"
        var driverLogger = options.logger
        driverLogger[metadataKey: "reader"] = "\(id)"
        let driver = CCIDDriver(
            transport: ReplayUSBTransport(
                transcript: transcript, characterLevel: descriptor.exchangeLevel == .character, logger: driverLogger),
            descriptor: descriptor,
            interfaceNumber: UInt8(clamping: header.interface), configuration: options.ccidDriverConfiguration,
            logger: driverLogger)
        let info = ReaderInfo(
            id: id, name: header.readerName ?? profile.product ?? "replayed reader",
            vendorID: profile.vendorID, productID: profile.productID, descriptor: descriptor, backend: scheme,
            announcesPresence: false)
        return OpenedReaders(readers: Reader.slotReaders(info: info, driver: driver, logger: options.readerLogger))
    }
}

/// A `replay:` selector's parts.
struct ReplaySelector {
    let log: String
    let profile: String?

    init(parsing selector: String) throws(ReplaySelectorError) {
        guard selector.hasPrefix("replay:") else { throw .missingLog }
        let parts = selector.dropFirst("replay:".count).split(separator: ",", omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty else { throw .missingLog }
        log = String(first)
        var profile: String?
        for option in parts.dropFirst() {
            guard option.hasPrefix("profile="), option.count > "profile=".count else {
                throw .unknownOption(String(option))
            }
            profile = String(option.dropFirst("profile=".count))
        }
        self.profile = profile
    }
}
