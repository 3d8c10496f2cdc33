import CardFlow

@testable import CardFlowTONCard

// The APDUs the scripted-card tests expect, as hex, shared by every scripted TON suite.
let selectTON = "00A404000C313132323333343435353636"
let selectCM = "00A4040008A000000151000000"
let appInfo = "B0C1000001"
let serial = "B0C2000018"
let getSault = "B0BD000020"
let ok = "9000"

/// Script steps for a protected TON command: GET SAULT answered with `sault`, then the command
/// signed with vector A's HMAC key over that sault, answered with `answer`.
func protectedSteps(
    _ ins: TONInstruction, p1: UInt8 = 0, _ payload: [UInt8] = [], le: Int? = nil, sault: [UInt8], answer: String
) throws -> [(String?, String)] {
    let command = try TONProtectedCommand.make(
        ins, p1: p1, payload: payload, sault: sault, key: try [UInt8](hex: VectorA.hmacKey), le: le)
    return [(getSault, sault.hexString + ok), (command.encoded().hexString, answer)]
}
