import CardFlowDaemon
import CardFlowDaemonFlows
import Foundation
import Testing

/// The check every flow kind's JSON test makes: `json` decodes with the standard kinds exactly
/// when `valid`, and what decodes survives encoding and decoding again unchanged.
func expectFlowJSON(_ json: String, valid: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let decoded = try? DaemonFlowKinds.standard.decoder().decode(FlowSpecification.self, from: Data(json.utf8))
    #expect((decoded != nil) == valid, "\(json)", sourceLocation: sourceLocation)
    if let decoded {
        let again = try DaemonFlowKinds.standard.decoder().decode(
            FlowSpecification.self, from: try JSONEncoder().encode(decoded))
        #expect(again == decoded, sourceLocation: sourceLocation)
    }
}
