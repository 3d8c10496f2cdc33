/// Which authentication command to use.
public enum DESFireAuthenticationMethod: Sendable, Hashable {
    /// AES keys → `AA`; DES/2K3DES/3K3DES keys → `1A` (EV1 secure messaging).
    case automatic
    /// `0A`: legacy (D40) authentication for DES/2K3DES keys, legacy secure messaging.
    case legacy
    /// `1A`: ISO authentication for DES/2K3DES/3K3DES keys.
    case iso
    /// `AA`: AES authentication.
    case aes
    /// `71`: AuthenticateEV2First with an AES key; EV2 secure messaging (TI, command counter,
    /// truncated MACs) for every command after it.
    case ev2

    func command(for key: DESFireKey) throws(DESFireError) -> DESFireCommand {
        switch (self, key.type) {
        case (.automatic, .aes), (.aes, .aes): return .authenticateAES
        case (.ev2, .aes): return .authenticateEV2First
        case (.automatic, _), (.iso, .des), (.iso, .twoKey3DES), (.iso, .threeKey3DES): return .authenticateISO
        case (.legacy, .des), (.legacy, .twoKey3DES): return .authenticateLegacy
        default: throw .invalidArgument("\(key.type) keys cannot authenticate with \(self)")
        }
    }
}
