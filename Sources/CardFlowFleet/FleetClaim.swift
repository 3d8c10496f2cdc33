import Foundation

/// A record a host holds: what its card gets, and the token every later write must present.
public struct FleetClaim: Sendable, Hashable {
    public var recordID: Int64
    public var batch: String
    /// The batch's own name for the record (an employee number, a badge serial).
    public var reference: String
    /// The record's flow parameters, a JSON object.
    public var parameters: [UInt8]
    /// The fencing token: a fresh UUID per claim.
    public var token: UUID
    /// 1 for the first claim of the record.
    public var attempt: Int
    public var uid: [UInt8]
    /// Whether the record was taken from an earlier claim whose lease ran out. Its holder may
    /// have written its card and still report it: the host must tell the store before its first
    /// step (``FleetQueue/beginWriting(_:lease:)``), and until then that completion wins.
    public var replacesEarlierClaim: Bool

    public init(
        recordID: Int64, batch: String, reference: String, parameters: [UInt8], token: UUID, attempt: Int,
        uid: [UInt8], replacesEarlierClaim: Bool = false
    ) {
        self.recordID = recordID
        self.batch = batch
        self.reference = reference
        self.parameters = parameters
        self.token = token
        self.attempt = attempt
        self.uid = uid
        self.replacesEarlierClaim = replacesEarlierClaim
    }
}

/// The answer to a claim request for a card on a reader.
public enum FleetClaimResult: Sendable, Hashable {
    /// The record is this host's until its lease runs out; the card's UID is bound to it.
    case claimed(FleetClaim)
    /// No record of the batch is claimable now.
    case nothingPending
    /// The card already has a record (claimed or done): it is not blank for this fleet.
    case cardAlreadyBound(recordID: Int64, reference: String, state: FleetRecordState)
    /// The card is on the spoilage list (a host died while writing it).
    case cardSpoiled(recordID: Int64?)
}
