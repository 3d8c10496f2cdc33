import CardFlowCCIDProtocol
import CardFlowSimulatorCards

extension ContactInterface.ErrorDetection {
    /// The EDC kind the card's T=1 endpoint computes.
    var t1Checksum: T1Checksum {
        switch self {
        case .lrc: .lrc
        case .crc: .crc
        }
    }
}
