import CardFlow

/// The FeliCa IC, from the IC type byte of PMm (PMm byte 1; nfcpy `tt3_sony.py` keeps the same
/// table). Lite and Lite-S read up to four blocks per Read Without Encryption and write one per
/// Write Without Encryption (FeliCa Lite-S user's manual); other ICs are driven one block at a
/// time, which every FeliCa accepts.
public enum FeliCaProduct: Sendable, Hashable, CustomStringConvertible {
    /// FeliCa Lite (RC-S965), IC type `F0`.
    case lite
    /// FeliCa Lite-S (RC-S966), IC type `F1`.
    case liteS
    /// FeliCa Link (RC-S730) in Lite-S mode, IC type `F2`.
    case linkLiteSMode
    /// Another FeliCa IC (Standard, Plug…) with this IC type.
    case other(icType: UInt8)

    /// The product PMm names.
    public init(pmm: [UInt8]) {
        switch pmm.count > 1 ? pmm[1] : 0x00 {
        case 0xF0: self = .lite
        case 0xF1: self = .liteS
        case 0xF2: self = .linkLiteSMode
        case let type: self = .other(icType: type)
        }
    }

    /// Whether the IC has the Lite memory map (S_PAD0–13, REG, the system blocks from `80`).
    public var hasLiteMemoryMap: Bool { !isOther }

    private var isOther: Bool {
        if case .other = self { return true }
        return false
    }

    /// The most blocks one Read Without Encryption takes.
    public var readBlockLimit: Int { isOther ? 1 : 4 }

    /// The most blocks one Write Without Encryption takes.
    public var writeBlockLimit: Int { 1 }

    public var description: String {
        switch self {
        case .lite: "FeliCa Lite"
        case .liteS: "FeliCa Lite-S"
        case .linkLiteSMode: "FeliCa Link (Lite-S mode)"
        case .other(let type): "FeliCa (IC type \([type].hexString))"
        }
    }
}
