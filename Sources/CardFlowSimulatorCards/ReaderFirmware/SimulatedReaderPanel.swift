/// What a simulated reader's LEDs and buzzer have shown, as its firmware carried out the host's
/// commands: tests and `cardctl simulate --panel-log` read it to see that a signal arrived.
public struct SimulatedReaderPanel: Sendable, Hashable, CustomStringConvertible {
    /// Whether the red LED is on now.
    public var red: Bool
    /// Whether the green LED is on now.
    public var green: Bool
    /// How many blinking sequences the LEDs have shown.
    public var blinkSequences = 0
    /// Each beep sounded, oldest first (the latest ``maximumBeeps`` kept).
    public var beeps: [Duration] = []

    /// Beeps kept in ``beeps``: a long simulation must not grow memory.
    public static let maximumBeeps = 64

    /// A panel with the LEDs `red` and `green` on or off and nothing shown yet.
    ///
    /// - Parameters:
    ///   - red: whether the red LED is on.
    ///   - green: whether the green LED is on.
    public init(red: Bool = false, green: Bool = false) {
        self.red = red
        self.green = green
    }

    /// Notes a beep of `length`.
    ///
    /// - Parameter length: how long the buzzer sounded.
    public mutating func beep(_ length: Duration) {
        beeps.append(length)
        if beeps.count > Self.maximumBeeps { beeps.removeFirst() }
    }

    /// "red off, green on, 0 blink sequences, beeps [100 ms]".
    public var description: String {
        let lengths = beeps.map {
            "\($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) ms"
        }
        return "red \(red ? "on" : "off"), green \(green ? "on" : "off"), \(blinkSequences) blink sequences, "
            + "beeps [\(lengths.joined(separator: ", "))]"
    }
}
