import CardFlowHex

/// `3B 81 80 01`: bytes as spaced upper-case hex, for logs and descriptions.
func pcscHex(_ bytes: some Collection<UInt8>) -> String {
    HexFormat.string(bytes, spaced: true)
}
