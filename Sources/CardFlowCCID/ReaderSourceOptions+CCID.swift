import CCID
import CardFlow

extension ReaderSourceOptions {
    /// The CCID driver's settings these options ask for: the ``/CardFlow/ReaderBackendSettings``
    /// entry for `CCIDDriverConfiguration` (defaults when none), with the read timeout and the
    /// card protocol the options set on top.
    public var ccidDriverConfiguration: CCIDDriverConfiguration {
        var configuration = backendSettings[CCIDDriverConfiguration.self] ?? CCIDDriverConfiguration()
        if let readTimeout { configuration.readTimeout = readTimeout }
        switch transmissionProtocol {
        case .t0: configuration.protocolPreference = .t0
        case .t1: configuration.protocolPreference = .t1
        case nil: break
        }
        return configuration
    }
}
