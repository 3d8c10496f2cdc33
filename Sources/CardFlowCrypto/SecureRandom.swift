/// Cryptographically secure random bytes from the system generator (`getrandom` on Linux).
public enum SecureRandom {
    /// Returns `count` random bytes, e.g. a DESFire RndA.
    public static func bytes(count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
