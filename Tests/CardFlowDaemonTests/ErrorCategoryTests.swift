import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowDESFire
import CardFlowDaemonControl
import CardFlowFleet
import CardFlowISO15693
import CardFlowNDEF
import CardFlowSimulator
import CardFlowStorageCards
import Testing

@testable import CardFlow

/// Every layer's errors say their own category (cardctl's exit codes and the daemon follow from
/// it): the table cardctl used to keep as a type switch, now asked of the errors themselves.
@Suite("Error categories")
struct ErrorCategoryTests {
    static let select = try! CommandAPDU(hex: "00A4040007A0000002471001")

    @Test func usageErrors() throws {
        let errors: [any Error] = [
            HexParseError.oddDigitCount(3),
            ReaderSelectorError.invalid("foo", reason: nil),
            DESFireError.invalidArgument("x"),
            NTAG424Error.invalidArgument("x"),
            NTAG424Error.lrpNotSupported,
            StorageCardError.blockOutOfRange(block: 64, blockCount: 64),
            StorageCardError.pageOutOfRange(page: 135, pageCount: 135),
            StorageCardError.ndefTooLarge(size: 2, capacity: 1),
            NTAG424SUNReplayError.unreadable(path: "/x", reason: "r"),
            FleetStoreError.invalidAddress("x"),
            FleetStoreError.unknownBatch("b"),
            SimulatorSpecificationError.unknownCardKind("nosuchcard"),
        ]
        for error in errors { #expect(error.errorCategory == .usage, "\(error)") }
    }

    @Test func cardErrors() {
        let errors: [any Error] = [
            CardStatusError(statusWord: StatusWord(rawValue: 0x6A82), command: Self.select),
            SessionError.noCard(waited: .seconds(1)),
            SessionError.unverifiableStepInterrupted(step: 1, name: "write"),
            DESFireError.notAuthenticated(command: .getVersion),
            NTAG424SUNError.macMismatch,
            NTAG424SUNReplayError.notCounted,
            StorageCardError.notAuthenticated(block: 4),
            ISO15693Error.noResponse,
            NDEFTagError.notAnNDEFTag,
            CCIDDriverError.noCard,
            CCIDDriverError.cardMute(during: .iccPowerOn),
            FlowError(stepIndex: 0, stepName: "read", underlying: SessionError.cardNotActivated),
        ]
        for error in errors { #expect(error.errorCategory == .card, "\(error)") }
    }

    @Test func readerErrors() {
        struct Unclassified: Error {}
        let errors: [any Error] = [
            SessionError.timedOut(what: "APDU", after: .seconds(1)),
            SessionError.sessionClosed,
            CCIDDriverError.transport(.timeout(endpoint: "bulk-in", after: .seconds(3)), during: .xfrBlock),
            USBTransportError.cancelled,
            ControlClientError.closed,
            FleetStoreError.timedOut(operation: "claim", seconds: 1),
            ReaderBackendUnavailable(scheme: "usb", underlying: USBTransportError.io("no usbfs")),
            Unclassified(),
        ]
        for error in errors { #expect(error.errorCategory == .reader, "\(error)") }
    }

    @Test func cancelledErrors() {
        #expect(CancellationError().errorCategory == .cancelled)
        #expect(CCIDDriverError.transport(.cancelled, during: .xfrBlock).errorCategory == .cancelled)
        #expect(FlowError(stepIndex: 2, stepName: "x", underlying: CancellationError()).errorCategory == .cancelled)
    }
}
