import CardFlow
import CardFlowPCSC
import CardFlowPCSCLite
import Testing

/// pcsc-lite's codes in CardFlow's categories, as pcsclite.h describes them: what the card did
/// (or lacks) is the card's, pcscd and the reader are the reader's (no pcscd needed). A connect
/// to a slot whose card side just left answers SCARD_W_UNPOWERED_CARD; cardctl said "reader"
/// (exit 3) where pyscard's caller, seeing the same code, has a card problem (partners-check).
@Suite struct PCSCErrorCategoryTests {
    @Test(arguments: [
        (PCSCErrorCode.noSmartcard, ErrorCategory.card), (.removedCard, .card), (.resetCard, .card),
        (.unpoweredCard, .card), (.unresponsiveCard, .card), (.unsupportedCard, .card), (.invalidATR, .card),
        (.noService, .reader), (.unknownReader, .reader), (.readerUnavailable, .reader), (.serviceStopped, .reader),
        (.noReadersAvailable, .reader), (.communicationError, .reader), (.timeout, .reader), (.cancelled, .cancelled),
    ])
    func codes(code: PCSCErrorCode, category: ErrorCategory) {
        #expect(PCSCError.failed(.connect, code).errorCategory == category, "\(code)")
    }

    @Test func anArgumentPCSCLiteCannotTakeIsUsage() {
        #expect(PCSCError.invalidArgument(.transmit, reason: "empty APDU").errorCategory == .usage)
        #expect(PCSCError.closed(.transmit).errorCategory == .reader)
    }
}
