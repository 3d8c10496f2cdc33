import CardFlowDaemon
import CardFlowDaemonFlows
import Foundation
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// cardd's configuration file (JSON): what decodes encodes to a configuration that decodes the same.
enum DaemonConfigurationFuzzing {
    static func configuration(_ bytes: [UInt8]) {
        guard
            let configuration = try? DaemonFlowKinds.standard.decoder().decode(
                DaemonConfiguration.self, from: Data(bytes))
        else { return }
        let encoded: Data
        do {
            encoded = try JSONEncoder().encode(configuration)
        } catch {
            fuzzCheck(false, "a decoded configuration does not encode: \(error)")
            return
        }
        let again = try? DaemonFlowKinds.standard.decoder().decode(DaemonConfiguration.self, from: encoded)
        fuzzCheck(again == configuration, "DaemonConfiguration does not survive encode/decode")
    }
}
