import Foundation

/// Where cardd's control socket is when neither its configuration (`"socket"`) nor the client
/// (`--socket PATH`) names one: the daemon and its clients must agree without talking first.
public enum ControlSocketPath {
    /// `/run/cardd/cardd.sock` for root, else `$XDG_RUNTIME_DIR/cardd.sock`, else
    /// `/tmp/cardd-UID/cardd.sock`.
    ///
    /// ```swift
    /// let client = try await ControlClient.connect(path: ControlSocketPath.forCurrentUser())
    /// ```
    public static func forCurrentUser() -> String {
        if getuid() == 0 { return "/run/cardd/cardd.sock" }
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/cardd.sock"
        }
        return "/tmp/cardd-\(getuid())/cardd.sock"
    }
}
