import CardFlow
import CardFlowTONCard

/// The TON card operations of `bench ops`: reading the serial number and the default path's
/// public key (no secrets needed), and verify PIN + sign (HMAC-protected APDUs), which needs
/// the PIN and the card's HMAC key from the plan's key store. Nothing is written (signing
/// changes no stored data).
struct TONOperations {
    let plan: OperationsPlan

    static let serialNumberRow = "get serial number"
    static let publicKeyRow = "get public key (default path)"

    /// The message signed: the plan's data length, within what the card signs (189 bytes).
    var messageLength: Int { min(plan.dataLength, 189) }
    var signRow: String { "verify PIN + sign \(messageLength) B" }

    /// Rows the run produces, for progress.
    var plannedOperations: Int { 3 }

    func run(_ recorder: inout OperationsRecorder) async throws {
        let hmacKeys = TONHmacKeyStore(store: plan.keyStore ?? InMemoryKeyStore())
        let wallet = TONWallet(channel: recorder.channel, hmacKeys: hmacKeys)
        let activatedRows = [Self.publicKeyRow, signRow]
        try await recorder.measure(Self.serialNumberRow) { _ in _ = try await wallet.serialNumber() }
        guard
            let state = try await recorder.prepare(
                "reading the applet state", dependents: activatedRows, { try await wallet.appletState() })
        else { return }
        guard state == .personalized else {
            recorder.skip(
                activatedRows, reason: "the applet is not activated (\(state.message)); activate the card first")
            return
        }
        try await recorder.measure(Self.publicKeyRow, bytes: 32) { _ in
            _ = try await wallet.publicKeyForDefaultPath()
        }
        guard let pin = plan.tonPIN else {
            recorder.skip([signRow], reason: "needs the card's PIN")
            return
        }
        guard plan.keyStore != nil else {
            recorder.skip([signRow], reason: "needs the key store holding the card's HMAC key")
            return
        }
        guard
            let hasKey = try await recorder.prepare(
                "looking up the card's HMAC key", dependents: [signRow],
                {
                    let serial = try await wallet.serialNumber()
                    return (serial, try await hmacKeys.hasKey(serialNumber: serial))
                })
        else { return }
        guard hasKey.1 else {
            recorder.skip(
                [signRow],
                reason:
                    "the key store has no HMAC key for card \(hasKey.0.digits) (secret \(TONHmacKeyStore.secretPrefix)\(hasKey.0.digits))"
            )
            return
        }
        let message = (0..<messageLength).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
        // A wrong PIN fails the first run, which ends the operation: it costs the card one try.
        try await recorder.measure(signRow, bytes: messageLength) { _ in
            _ = try await wallet.verifyPinAndSignForDefaultPath(message, pin: pin)
        }
    }
}
