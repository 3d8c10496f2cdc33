import CardFlowBench
import Foundation
import Testing

@Suite("docs/bench-json-schema.md")
struct BenchJSONSchemaDocTests {
    static let documentation = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/bench-json-schema.md")

    @Test("the example document decodes as a BenchDocument and encodes back without the absent optionals")
    func example() throws {
        let text = try String(contentsOf: Self.documentation, encoding: .utf8)
        let start = try #require(text.range(of: "```json\n"))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        let json = Data(text[start.upperBound..<end.lowerBound].utf8)
        let document = try JSONDecoder().decode(BenchDocument.self, from: json)
        #expect(document.schema == BenchDocument.currentSchema)
        #expect(document.runs.count == 1)
        let run = try #require(document.runs.first)
        #expect(run.kind == .latency)
        #expect(run.reader.serialNumber == nil)
        #expect(run.latency?.statistics.count == 2000)
        #expect(run.latency?.histogram.reduce(0) { $0 + $1.count } == 2000)
        #expect(run.latency?.outliers.firstFailure == nil)

        let encoded = try JSONEncoder().encode(document)
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        let runs = try #require(object["runs"] as? [[String: Any]])
        #expect(runs[0]["interruption"] == nil)
        #expect(runs[0]["sweep"] == nil)
        #expect((runs[0]["reader"] as? [String: Any])?["serialNumber"] == nil)
        #expect(runs[0]["interrupted"] as? Bool == false)
    }

    @Test("every field of the model is documented")
    func fieldsDocumented() throws {
        let text = try String(contentsOf: Self.documentation, encoding: .utf8)
        let encoded = try JSONEncoder().encode(BenchReportFixtures.fullDocument())
        var keys: Set<String> = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, child) in object {
                    keys.insert(key)
                    collect(child)
                }
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        collect(try JSONSerialization.jsonObject(with: encoded))
        // The reader's details are data, not schema.
        keys.subtract(["maximum message length", "slots"])
        for key in keys.sorted() {
            #expect(text.contains("`\(key)`"), "\(key) is not in docs/bench-json-schema.md")
        }
    }
}
