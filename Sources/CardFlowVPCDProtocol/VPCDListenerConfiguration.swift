extension VPCDListener {
    /// Settings of a ``VPCDListener``.
    public struct Configuration: Sendable, Hashable {
        /// Time limits of each card connection.
        public var timeouts: VPCDTimeouts
        /// The longest answer accepted from a card side; a longer one disconnects it with
        /// ``VPCDError/messageTooLarge(length:maximum:)``. Default 65,538 (extended length).
        public var maximumResponseLength: Int
        /// How a card side that vanished without closing its connection is noticed (`nil`:
        /// never; its card then stays present until the listener closes).
        public var keepAlive: VPCDKeepAlive?

        public init(
            timeouts: VPCDTimeouts = VPCDTimeouts(),
            maximumResponseLength: Int = VPCDFraming.defaultMaximumPayload,
            keepAlive: VPCDKeepAlive? = .standard
        ) {
            self.timeouts = timeouts
            self.maximumResponseLength = maximumResponseLength
            self.keepAlive = keepAlive
        }
    }
}
