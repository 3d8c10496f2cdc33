/// Whether two byte arrays are equal, in time that depends only on their lengths.
///
/// Keys, secrets and MACs are compared with it, so that how long a rejection takes says nothing
/// about how many leading bytes were right.
///
/// ```swift
/// guard constantTimeEqual(expectedMAC, receivedMAC) else { throw MyError.macMismatch }
/// ```
///
/// Any byte collections: a MAC at the end of an answer is compared where it lies
/// (`response.data.suffix(8)`), without copying it out.
@inlinable
public func constantTimeEqual(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for (left, right) in zip(lhs, rhs) {
        difference |= left ^ right
    }
    return difference == 0
}
