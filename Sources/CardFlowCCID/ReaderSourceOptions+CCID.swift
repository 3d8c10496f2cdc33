import CardFlow
import CardFlowCCIDProtocol

extension ReaderSourceOptions {
    /// The CCID driver's settings these options ask for: the ``/CardFlow/ReaderBackendSettings``
    /// entry for `CCIDDriverConfiguration` (defaults when none), with the read timeout and the
    /// card protocol the options set on top.
    public var ccidDriverConfiguration: CCIDDriverConfiguration {
        var configuration = backendSettings[CCIDDriverConfiguration.self] ?? CCIDDriverConfiguration()
        if let readTimeout { configuration.readTimeout = readTimeout }
        if let transmissionProtocol {
            configuration.protocolPreference = CCIDReaderDriver.preference(transmissionProtocol)
        }
        return configuration
    }
}
