/// One decoder under fuzz: its name (the corpus folder's name too) and what one input does.
///
/// `run` decodes the input and checks the decoder's invariants; a broken invariant traps through
/// ``fuzzCheck(_:_:)``, which libFuzzer reports as a crash with the input that caused it.
public struct FuzzTarget: Sendable {
    public let name: String
    public let run: @Sendable ([UInt8]) -> Void

    public init(name: String, run: @escaping @Sendable ([UInt8]) -> Void) {
        self.name = name
        self.run = run
    }
}

/// Traps with a message when an invariant does not hold (in release builds too, unlike `assert`).
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}

/// Reads a fuzz input front to back: parameters first, then the payload the decoder sees.
public struct FuzzInput {
    private let bytes: [UInt8]
    public private(set) var offset = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var isEmpty: Bool { offset >= bytes.count }

    /// The next byte, 0 past the end (so short inputs still pick parameters).
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Up to `count` next bytes.
    public mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + max(count, 0))
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        take(bytes.count - offset)
    }
}
