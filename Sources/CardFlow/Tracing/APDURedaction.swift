/// Which bytes of an APDU exchange a trace must not show, decided by the layers that know where
/// secrets travel.
///
/// A rule looks at the command and returns byte ranges of the command's data field and of the
/// response's data field (offsets into `data`, not into the encoded APDU). Ranges beyond the data
/// are clipped, so ``Ranges/wholeData`` covers everything whatever its length. Redacted bytes are
/// traced as `**`; header, length fields and status words always stay visible.
///
/// ```swift
/// // A DESFire layer: ChangeKey (INS C4) carries key material in its data.
/// let changeKey = APDURedaction.instruction(0xC4)
/// // A TON layer: the first 16 response bytes of INS 0x88 are a session key.
/// let tonSession = APDURedaction { command in
///     command.ins == 0x88 ? .init(responseData: [0..<16]) : .none
/// }
/// let channel = TracingCardChannel(wrapping: base, logger: logger,
///                                  redaction: changeKey.combined(with: tonSession))
/// ```
///
/// Rules must be cheap and must not block: ``TracingCardChannel`` calls them once per traced
/// exchange (and never when trace logging is off).
public struct APDURedaction: Sendable {
    /// Byte ranges to hide in the command data and the response data of one exchange.
    public struct Ranges: Hashable, Sendable {
        /// Ranges of offsets into ``CommandAPDU/data``.
        public var commandData: [Range<Int>]
        /// Ranges of offsets into ``ResponseAPDU/data``.
        public var responseData: [Range<Int>]

        /// A range covering a data field of any length.
        public static let wholeData: [Range<Int>] = [0..<Int.max]

        /// Nothing to hide.
        public static let none = Ranges()

        public init(commandData: [Range<Int>] = [], responseData: [Range<Int>] = []) {
            self.commandData = commandData
            self.responseData = responseData
        }

        /// Whether nothing is hidden.
        public var isEmpty: Bool {
            commandData.allSatisfy(\.isEmpty) && responseData.allSatisfy(\.isEmpty)
        }

        /// The bytes either value hides.
        public func union(_ other: Ranges) -> Ranges {
            Ranges(commandData: commandData + other.commandData, responseData: responseData + other.responseData)
        }
    }

    private let rules: [@Sendable (CommandAPDU) -> Ranges]

    private init(rules: [@Sendable (CommandAPDU) -> Ranges]) {
        self.rules = rules
    }

    /// A redaction that asks `rule` for every command.
    public init(_ rule: @escaping @Sendable (CommandAPDU) -> Ranges) {
        self.init(rules: [rule])
    }

    /// Hides nothing.
    public static let none = APDURedaction(rules: [])

    /// Hides the whole command data and/or response data of every command with instruction `ins`
    /// (and class byte `cla`, when given).
    ///
    /// - Parameters:
    ///   - ins: the instruction byte of the commands to hide.
    ///   - cla: the class byte they must also have; nil for any.
    ///   - commandData: hide the command's data field (default `true`).
    ///   - responseData: hide the response's data field (default `false`).
    public static func instruction(
        _ ins: UInt8, cla: UInt8? = nil, commandData: Bool = true, responseData: Bool = false
    ) -> APDURedaction {
        let ranges = Ranges(
            commandData: commandData ? Ranges.wholeData : [],
            responseData: responseData ? Ranges.wholeData : [])
        return APDURedaction { command in
            command.ins == ins && (cla == nil || command.cla == cla) ? ranges : .none
        }
    }

    /// Hides what this redaction hides and what `other` hides, so several layers can each add
    /// their own rules.
    public func combined(with other: APDURedaction) -> APDURedaction {
        APDURedaction(rules: rules + other.rules)
    }

    /// The ranges every rule asks to hide for `command`.
    public func ranges(for command: CommandAPDU) -> Ranges {
        var result = Ranges.none
        for rule in rules {
            result = result.union(rule(command))
        }
        return result
    }

    /// Whether the redaction has no rules at all (so asking it is unnecessary).
    public var hidesNothing: Bool { rules.isEmpty }
}
