/// Whether two byte arrays are equal, in time that depends only on their lengths.
///
/// Keys, secrets and MACs are compared with it, so that how long a rejection takes says nothing
/// about how many leading bytes were right.
///
/// ```swift
/// guard constantTimeEqual(expectedMAC, receivedMAC) else { throw MyError.macMismatch }
/// ```
public func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in lhs.indices {
        difference |= lhs[index] ^ rhs[index]
    }
    return difference == 0
}
