/// The CardFlow release this build is: one constant that `cardctl --version`, `cardd --version`
/// and CHANGELOG.md agree on (bump all three together).
///
/// ```swift
/// logger.info("starting", metadata: ["cardflow": "\(CardFlowVersion.current)"])
/// ```
public enum CardFlowVersion {
    /// Semantic version, as in CHANGELOG.md.
    public static let current = "0.1.0"
}
