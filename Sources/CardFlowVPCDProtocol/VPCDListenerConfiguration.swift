extension VPCDListener {
    /// Settings of a ``VPCDListener``.
    public struct Configuration: Sendable, Hashable {
        /// Time limits of each card connection.
        public var timeouts: VPCDTimeouts
        /// The longest answer accepted from a card side; a longer one disconnects it with
        /// ``VPCDError/messageTooLarge(length:maximum:)``. Default 65,538 (extended length).
        public var maximumResponseLength: Int

        public init(
            timeouts: VPCDTimeouts = VPCDTimeouts(),
            maximumResponseLength: Int = VPCDFraming.defaultMaximumPayload
        ) {
            self.timeouts = timeouts
            self.maximumResponseLength = maximumResponseLength
        }
    }
}
