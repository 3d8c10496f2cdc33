import Foundation

/// Why a daemon flow failed, beyond the card layers' own errors.
public enum DaemonFlowError: Error, Sendable, Hashable, CustomStringConvertible {
    case unexpectedStatus(apdu: Int, statusWord: UInt16, expected: UInt16)
    case readBackMismatch
    case noKeyStore
    case missingSecret(String)
    /// A fleet record's parameters (merged over the rule's template) are not a valid flow.
    case invalidFleetRecord(String)
    /// A `fleet` flow runs when a card arrives and a record is claimed for it, not on request.
    case fleetFlowNeedsClaim
    /// The host lost its claim on the record (lease expired unrenewed, or another host holds it
    /// now): the flow stopped before its next step.
    case fleetClaimLost(record: Int64)

    public var description: String {
        switch self {
        case .unexpectedStatus(let apdu, let sw, let expected):
            "APDU \(apdu + 1) answered \(String(format: "%04X", sw)), expected \(String(format: "%04X", expected))"
        case .readBackMismatch: "the data read back differs from what was written"
        case .missingSecret(let name): "the key store has no secret '\(name)'"
        case .noKeyStore:
            "this flow takes its keys from a key store, and cardd has none (set \"keyStore\" in the configuration)"
        case .invalidFleetRecord(let reason): "the fleet record cannot be run: \(reason)"
        case .fleetFlowNeedsClaim:
            "a fleet flow runs on the card a record was claimed for (a rule with \"fleet\" configured), not on request"
        case .fleetClaimLost(let record):
            "the claim on fleet record \(record) was lost (lease not renewed in time, or claimed by another host); "
                + "stopped before the next step"
        }
    }
}
